// Package linuxmodel is what a Linux host does below TCP that gVisor does not (CPU, TSQ, ACKs).
// Above the bus: link endpoints in a host's frame path, on the board's stack and the PC's.
//
// It is what a Linux host does below its TCP that gVisor
// does not, as link endpoints (package link) in a host's frame path: the
// core's time per packet with the per-CPU backlog (Softnet, CPU), TCP Small
// Queues (SmallQueues) and a Linux receiver's ACK policy (DelayedAcks).
// Each is one endpoint, or for TSQ a pair on one state, and a host leaves out
// what it does not model. docs/linux-models.md has the background.
package linuxmodel
