package tap

import (
	"errors"
	"io"
	"os"
	"sync"

	"mesonemu/emu"
	"mesonemu/netstack"
)

// DirectNIC is a TAP seen as a netstack.FrameNIC: a stack on it talks to the
// host with the emulated MAC, wire and far end bypassed. It is the reference
// the emulated path's cost is measured against.
type DirectNIC struct {
	m    *emu.Machine
	port io.ReadWriteCloser

	mu   sync.Mutex
	recv func([]byte)
	once sync.Once
	wg   sync.WaitGroup
}

var _ netstack.FrameNIC = (*DirectNIC)(nil)

// NewDirectNIC wraps port for a stack on machine m; Close closes it. Host
// frames enter the machine as events when they arrive (emu.Inject).
func NewDirectNIC(m *emu.Machine, port io.ReadWriteCloser) *DirectNIC {
	return &DirectNIC{m: m, port: port}
}

// Transmit implements netstack.FrameNIC.
func (d *DirectNIC) Transmit(frame []byte) error {
	if _, err := d.port.Write(frame); err != nil {
		if errors.Is(err, os.ErrClosed) {
			return netstack.ErrClosed
		}
		return err
	}
	return nil
}

// SetTxReady implements netstack.FrameNIC: a TAP write never reports busy.
func (d *DirectNIC) SetTxReady(func()) {}

// SetReceiver implements netstack.FrameNIC; the first call starts the reader.
func (d *DirectNIC) SetReceiver(fn func([]byte)) {
	d.mu.Lock()
	d.recv = fn
	d.mu.Unlock()
	d.once.Do(func() {
		d.wg.Add(1)
		go d.readLoop()
	})
}

func (d *DirectNIC) readLoop() {
	defer d.wg.Done()
	buf := make([]byte, readBufLen)
	for {
		n, err := d.port.Read(buf)
		if err != nil {
			return // closed, or the device is gone
		}
		if n > MaxFrameLen || n < MinFrameLen {
			continue
		}
		d.mu.Lock()
		fn := d.recv
		d.mu.Unlock()
		if fn != nil {
			f := append([]byte(nil), buf[:n]...)
			d.m.Inject(func() { fn(f) })
		}
	}
}

// Close closes the port and waits for the reader.
func (d *DirectNIC) Close() error {
	err := d.port.Close()
	d.wg.Wait()
	return err
}
