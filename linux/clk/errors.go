package clk

import (
	"errors"
	"fmt"
)

// Errno is a Linux error number, what a clock op or the framework returns where
// Linux returns a negative int. The framework treats an Errno from an op exactly as
// Linux treats the return value: it sometimes ignores it (clk_change_rate ignores
// what set_rate returns). Any error that is not an Errno is a failed hardware access
// (a bus error); those are never ignored and always reach the caller of the running
// framework function.
type Errno int

// The error numbers this port uses (asm-generic/errno-base.h, errno.h).
const (
	ErrPerm     Errno = 1   // EPERM
	ErrNoDevice Errno = 6   // ENXIO: the clock was unregistered
	ErrBusy     Errno = 16  // EBUSY
	ErrExist    Errno = 17  // EEXIST
	ErrInvalid  Errno = 22  // EINVAL
	ErrShutdown Errno = 108 // ESHUTDOWN: enabling an unprepared clock
)

func (e Errno) Error() string {
	switch e {
	case ErrPerm:
		return "operation not permitted (EPERM)"
	case ErrNoDevice:
		return "no such device (ENXIO)"
	case ErrBusy:
		return "device busy (EBUSY)"
	case ErrExist:
		return "already exists (EEXIST)"
	case ErrInvalid:
		return "invalid argument (EINVAL)"
	case ErrShutdown:
		return "not prepared (ESHUTDOWN)"
	}
	return fmt.Sprintf("errno %d", int(e))
}

// isAccessErr tells a hardware access failure from a Linux error code.
func isAccessErr(err error) bool {
	var e Errno
	return err != nil && !errors.As(err, &e)
}

// note keeps the first hardware access failure of the running framework call, for
// the paths where Linux has no way to report one (void ops, clk_hw_round_rate).
func (fw *Framework) note(err error) {
	if isAccessErr(err) && fw.opErr == nil {
		fw.opErr = err
	}
}

// finish ends a public framework call: it returns err, joined with any access
// failure noted on the way, and clears the note for the next call.
func (fw *Framework) finish(err error) error {
	noted := fw.opErr
	fw.opErr = nil
	switch {
	case noted == nil:
		return err
	case err == nil:
		return noted
	case errors.Is(err, noted):
		return err
	}
	return errors.Join(err, noted)
}
