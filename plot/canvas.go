package plot

import (
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Output formats.
const (
	PNG = "png"
	SVG = "svg"
)

// FormatOf returns the output format named by a file's extension (.png or .svg,
// any case).
func FormatOf(path string) (string, error) {
	switch f := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), ".")); f {
	case PNG, SVG:
		return f, nil
	}
	return "", fmt.Errorf("plot: %q: want a .png or .svg file name", path)
}

// Size is an image size in pixels (PNG) or CSS pixels (SVG, 96 per inch).
type Size struct {
	Width, Height int
}

// Size limits; the zero Size means DefaultSize.
const (
	MinPixels = 200
	MaxPixels = 8192
)

// DefaultSize suits a README: readable at 100 % and well under 200 KB as PNG.
var DefaultSize = Size{Width: 960, Height: 600}

// dpi is the pixel density used to turn pixels into gonum lengths.
const dpi = 96

func (s Size) orDefault() Size {
	if s == (Size{}) {
		return DefaultSize
	}
	return s
}

func (s Size) validate() error {
	if s.Width < MinPixels || s.Width > MaxPixels || s.Height < MinPixels || s.Height > MaxPixels {
		return fmt.Errorf("plot: size %dx%d: want %d..%d pixels each way", s.Width, s.Height, MinPixels, MaxPixels)
	}
	return nil
}

func pixels(n int) vg.Length { return vg.Length(n) * vg.Inch / dpi }

// render makes a canvas of the format and size, fills it white, lets paint
// draw on it and writes it to w. gonum panics on some inputs (a log axis with
// a value ≤ 0, for one); the callers clamp their data first, and a panic that
// still escapes is returned as an error rather than taking the program down.
func render(w io.Writer, format string, size Size, paint func(c draw.Canvas) error) (err error) {
	size = size.orDefault()
	if err := size.validate(); err != nil {
		return err
	}
	wl, hl := pixels(size.Width), pixels(size.Height)
	var cw vg.CanvasWriterTo
	switch format {
	case PNG:
		cw = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(wl, hl), vgimg.UseDPI(dpi))}
	case SVG:
		cw = vgsvg.New(wl, hl)
	default:
		return fmt.Errorf("plot: format %q: want %q or %q", format, PNG, SVG)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot: drawing failed: %v", r)
		}
	}()
	dc := draw.New(cw)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	if err := paint(dc); err != nil {
		return err
	}
	if _, err := cw.WriteTo(w); err != nil {
		return fmt.Errorf("plot: write %s: %w", format, err)
	}
	return nil
}

// newPlot is a gonum plot with the package's type sizes.
func newPlot(title string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(11)
		a.Tick.Label.Font.Size = vg.Points(9.5)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(9.5)
	return p
}
