package tap

import (
	"errors"
	"io"
	"os"
	"sync"

	"mesonemu/netstack"
)

// DirectNIC is a TAP seen as a netstack.FrameNIC: a stack on it talks to the
// host with the emulated MAC, wire and far end bypassed. It is the reference
// the emulated path's cost is measured against.
type DirectNIC struct {
	port io.ReadWriteCloser

	mu   sync.Mutex
	recv func([]byte)
	once sync.Once
	wg   sync.WaitGroup
}

var _ netstack.FrameNIC = (*DirectNIC)(nil)

// NewDirectNIC wraps port; Close closes it.
func NewDirectNIC(port io.ReadWriteCloser) *DirectNIC { return &DirectNIC{port: port} }

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
			fn(buf[:n])
		}
	}
}

// Close closes the port and waits for the reader.
func (d *DirectNIC) Close() error {
	err := d.port.Close()
	d.wg.Wait()
	return err
}
