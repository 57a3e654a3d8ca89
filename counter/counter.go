// Package counter subtracts two snapshots of a counter struct, every field at once.
// The medium both sides share: hardware and guest counter types build their Sub on it.
//
// With it no caller writes the subtraction field by field.
package counter

import "reflect"

// Sub returns now - base for every exported unsigned integer field of T,
// in nested structs and arrays too; every other field is now's. The
// arithmetic is modular, as for the counters themselves: a counter reset
// between the two snapshots gives a wrapped value, never a panic. T that is
// not a struct is returned as now.
func Sub[T any](now, base T) T {
	out := now
	dst := reflect.ValueOf(&out).Elem()
	if dst.Kind() == reflect.Struct {
		sub(dst, reflect.ValueOf(base))
	}
	return out
}

func sub(dst, base reflect.Value) {
	switch dst.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		dst.SetUint(dst.Uint() - base.Uint())
	case reflect.Struct:
		for i := range dst.NumField() {
			if f := dst.Field(i); f.CanSet() {
				sub(f, base.Field(i))
			}
		}
	case reflect.Array:
		for i := range dst.Len() {
			sub(dst.Index(i), base.Index(i))
		}
	}
}
