// Package farend models the PC's network card at the far end of the cable.
// Hardware side: silicon of the far end, driven by the PC's stack, never by the guest.
//
// It models the PC's network card at the other end of the cable
// (hardware side). Its receiver checks what the board sends (framing, length,
// FCS), counts every drop by cause in ethtool -S style and hands good frames to
// the PC's stack; its transmitter appends the FCS and serialises the stack's
// frames at the line rate in virtual time.
//
// Locking: Receive, SendLocked, StatsLocked and the setters run with the machine
// lock held (hardware events, or the board assembly before the machine runs).
// Send and Stats take the lock themselves, for guest or stack goroutines.
package farend
