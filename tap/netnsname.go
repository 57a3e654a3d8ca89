package tap

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// currentNetnsName is the name `ip netns add` gave the namespace this
// process runs in (after `ip netns exec NS mesonemu ...`), or "" when the
// namespace has no name there (the main one, or one made otherwise). A name
// is a bind mount of the namespace file, so the same device and inode as
// the calling thread's /proc/thread-self/ns/net (every thread, after ip
// netns exec; the one InNetns moved, in the tests).
func currentNetnsName() string {
	var self unix.Stat_t
	if err := unix.Stat("/proc/thread-self/ns/net", &self); err != nil {
		return ""
	}
	entries, err := os.ReadDir(NetnsDir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		var st unix.Stat_t
		if unix.Stat(filepath.Join(NetnsDir, e.Name()), &st) == nil && st.Dev == self.Dev && st.Ino == self.Ino {
			return e.Name()
		}
	}
	return ""
}
