package iperf3

import (
	"strconv"
	"strings"
	"time"
)

// strftime formats t as C's strftime does in the C locale (glibc's
// conversions, flags "-", "_", "0", "^" and "#", a field width, and the
// ignored E and O modifiers). An unknown conversion is copied as written
// (padded to its width), as glibc does, and so is a lone "%" at the end.
func strftime(format string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			b.WriteByte(format[i])
			continue
		}
		start := i
		var sp spec
		for i++; i < len(format) && strings.IndexByte("-_0^#", format[i]) >= 0; i++ {
			sp.flag(format[i])
		}
		for ; i < len(format) && format[i] >= '0' && format[i] <= '9'; i++ {
			sp.width = min(sp.width*10+int(format[i]-'0'), 1024)
		}
		if i < len(format) && (format[i] == 'E' || format[i] == 'O') {
			i++
		}
		if i >= len(format) {
			b.WriteString(format[start:])
			break
		}
		s, ok := sp.conv(format[i], t)
		if !ok {
			s = sp.widen(format[start:i+1], ' ') // glibc pads the copy too
		}
		b.WriteString(s)
	}
	return b.String()
}

// spec is one conversion's flags and width.
type spec struct {
	pad   byte // 0: the conversion's own; '-': none; '_' or '0'
	upper bool // ^
	swap  bool // #: glibc upper-cases names, lower-cases %p and %Z
	width int
}

func (sp *spec) flag(c byte) {
	switch c {
	case '-', '_', '0':
		sp.pad = c
	case '^':
		sp.upper = true
	case '#':
		sp.swap = true
	}
}

var (
	weekdays = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	months   = [...]string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
)

// conv expands one conversion character; false if glibc does not know it.
func (sp spec) conv(c byte, t time.Time) (string, bool) {
	if s, ok := sp.number(c, t); ok {
		return s, true
	}
	var s string
	switch c {
	case 'a':
		s = weekdays[t.Weekday()][:3]
	case 'A':
		s = weekdays[t.Weekday()]
	case 'b', 'h':
		s = months[t.Month()-1][:3]
	case 'B':
		s = months[t.Month()-1]
	case 'p':
		s = ampm(t, "AM", "PM")
	case 'P':
		s = ampm(t, "am", "pm")
	case 'z':
		_, off := t.Zone()
		sign := '+'
		if off < 0 {
			sign, off = '-', -off
		}
		s = string(sign) + pad(off/3600*100+off%3600/60, 4, '0')
	case 'Z':
		s, _ = t.Zone()
	case 'n':
		s = "\n"
	case 't':
		s = "\t"
	case '%':
		s = "%"
	default:
		if comp, ok := composites[c]; ok {
			s = strftime(comp, t)
			break
		}
		return "", false
	}
	switch {
	case sp.swap && (c == 'p' || c == 'Z'):
		s = strings.ToLower(s)
	case sp.upper || sp.swap:
		s = strings.ToUpper(s)
	}
	if sp.width > len(s) {
		fill := " "
		if sp.pad == '0' {
			fill = "0"
		}
		s = strings.Repeat(fill, sp.width-len(s)) + s
	}
	return s, true
}

// composites are the conversions glibc's C locale defines by others.
var composites = map[byte]string{
	'c': "%a %b %e %H:%M:%S %Y",
	'D': "%m/%d/%y",
	'x': "%m/%d/%y",
	'F': "%Y-%m-%d",
	'T': "%H:%M:%S",
	'X': "%H:%M:%S",
	'R': "%H:%M",
	'r': "%I:%M:%S %p",
}

func ampm(t time.Time, am, pm string) string {
	if t.Hour() < 12 {
		return am
	}
	return pm
}

// number expands the numeric conversions with their default width and pad.
func (sp spec) number(c byte, t time.Time) (string, bool) {
	var v, width int
	fill := byte('0')
	switch c {
	case 'd':
		v, width = t.Day(), 2
	case 'e':
		v, width, fill = t.Day(), 2, ' '
	case 'H':
		v, width = t.Hour(), 2
	case 'k':
		v, width, fill = t.Hour(), 2, ' '
	case 'I', 'l':
		v, width = (t.Hour()+11)%12+1, 2
		if c == 'l' {
			fill = ' '
		}
	case 'M':
		v, width = t.Minute(), 2
	case 'S':
		v, width = t.Second(), 2
	case 'm':
		v, width = int(t.Month()), 2
	case 'j':
		v, width = t.YearDay(), 3
	case 'y':
		v, width = t.Year()%100, 2
	case 'Y':
		v, width = t.Year(), 1
	case 'C':
		v, width = t.Year()/100, 2
	case 'G':
		v, _ = t.ISOWeek()
		width = 1
	case 'g':
		v, _ = t.ISOWeek()
		v, width = v%100, 2
	case 'V':
		_, v = t.ISOWeek()
		width = 2
	case 'u':
		v, width = (int(t.Weekday())+6)%7+1, 1
	case 'w':
		v, width = int(t.Weekday()), 1
	case 'U':
		v, width = (t.YearDay()-1+7-int(t.Weekday()))/7, 2
	case 'W':
		v, width = (t.YearDay()-1+7-(int(t.Weekday())+6)%7)/7, 2
	case 's':
		return sp.widen(strconv.FormatInt(t.Unix(), 10), fill), true
	default:
		return "", false
	}
	switch sp.pad {
	case '-':
		width = 1
	case '_', '0':
		fill = sp.pad
		if fill == '_' {
			fill = ' '
		}
	}
	return sp.widen(pad(v, width, fill), fill), true
}

// widen applies a field width the user gave.
func (sp spec) widen(s string, fill byte) string {
	if sp.pad == '_' {
		fill = ' '
	} else if sp.pad == '0' {
		fill = '0'
	}
	if sp.width > len(s) {
		s = strings.Repeat(string(fill), sp.width-len(s)) + s
	}
	return s
}

// pad writes v in at least width characters, filled on the left.
func pad(v, width int, fill byte) string {
	s := strconv.Itoa(v)
	if len(s) >= width {
		return s
	}
	return strings.Repeat(string(fill), width-len(s)) + s
}
