package farend

import (
	"fmt"
	"strings"

	"mesonemu/emu"
)

// PCProfile is a 2019 desktop NIC class as its Linux v5.4/v5.5 driver
// moderates receive interrupts by default; docs/latency.md gives the
// sources (drivers/net/ethernet/realtek/r8169_main.c, intel/e1000e,
// intel/igb, drivers/net/usb/r8152.c, drivers/usb/host/xhci-pci.c).
type PCProfile struct {
	Name, NIC string
	// Config holds the receive-moderation fields the profile sets.
	Config Config
	Why    string
}

// PCProfiles are the profiles --pc offers, the default first.
var PCProfiles = []PCProfile{
	{Name: "r8169", NIC: "Realtek RTL8111/8168, r8169", Config: Config{Profile: "r8169"},
		Why: "rtl_hw_start_8168 writes IntrMitigate 0: no moderation"},
	{Name: "e1000e", NIC: "Intel I219-V, e1000e",
		Config: Config{Profile: "e1000e", RxDelay: 50 * emu.Microsecond, RxBulkDelay: 250 * emu.Microsecond, RxBulkFrames: 7},
		Why:    "InterruptThrottleRate 3 (dynamic conservative): 20000 interrupts/s, 4000/s after an interrupt of 7 or more full frames"},
	{Name: "igb", NIC: "Intel I210/I211, igb with MSI-X",
		Config: Config{Profile: "igb", RxDelay: 192 * emu.Microsecond},
		Why:    "igb_update_ring_itr: (1514 + 24) / 2 = 769, EITR about 192 us for full frames at any rate"},
	{Name: "rtl8153", NIC: "Realtek RTL8153 on USB 3, r8152, behind an xHCI",
		Config: Config{Profile: "rtl8153", RxTimer: 85 * emu.Microsecond, RxDelay: 40 * emu.Microsecond},
		Why:    "COALESCE_SUPER 85000 ns in USB_RX_EARLY_TIMEOUT; xhci-pci's imod_interval 40000 ns"},
}

// DefaultPCProfile is the PC the commit's numbers are set beside: no
// moderation, the fastest path (the commit does not name its PC).
const DefaultPCProfile = "r8169"

// LookupPCProfile finds a profile by name.
func LookupPCProfile(name string) (PCProfile, error) {
	var names []string
	for _, p := range PCProfiles {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return PCProfile{}, fmt.Errorf("--pc %q: want one of %s", name, strings.Join(names, ", "))
}

// Apply sets c's receive moderation to the profile's, keeping the rest.
func (p PCProfile) Apply(c Config) Config {
	c.RxDelay, c.RxBulkDelay, c.RxBulkFrames = p.Config.RxDelay, p.Config.RxBulkDelay, p.Config.RxBulkFrames
	c.RxTimer, c.Profile = p.Config.RxTimer, p.Config.Profile
	return c
}
