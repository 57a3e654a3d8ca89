package iperf3

import "strings"

// --bidir (3.12): the client opens Parallel sending streams, then Parallel
// receiving ones; the server takes the first Parallel it accepts as
// receiving. Reports treat each direction as a group of its own: the client
// prints its sending ("TX") group first, the server its receiving one, and
// the server -> client direction's JSON sums carry "_bidir_reverse".

// groups lists the directions a report covers, in print order: a stream is
// in group g when st.sender == g.
func (s *session) groups() []bool {
	switch {
	case !s.params.Bidir:
		return []bool{s.sending}
	case s.role == 'c':
		return []bool{true, false}
	}
	return []bool{false, true}
}

// tag is the "[TX-C]" role mark of a --bidir line, "" otherwise.
func (s *session) tag(sender bool) string {
	if !s.params.Bidir {
		return ""
	}
	dir := "RX"
	if sender {
		dir = "TX"
	}
	return "[" + dir + "-" + strings.ToUpper(string(s.role)) + "]"
}

// reverseGroup is the server -> client direction of a --bidir test.
func (s *session) reverseGroup(sender bool) bool {
	return s.params.Bidir && (s.role == 'c') != sender
}

// bidirHeader puts the "[Role]" column into a header under --bidir.
func (s *session) bidirHeader(h string) string {
	if !s.params.Bidir {
		return h
	}
	return strings.Replace(h, "[ ID]", "[ ID][Role]", 1)
}

// setEndSums records a direction's end sums under its names.
func (s *session) setEndSums(sender bool, sum, sent, received *EndSum) {
	end := &s.res.End
	if s.reverseGroup(sender) {
		end.SumBidirReverse, end.SumSentBidirReverse, end.SumReceivedBidirReverse = sum, sent, received
		return
	}
	end.Sum, end.SumSent, end.SumReceived = sum, sent, received
}

// streamCount is how many data streams the test has: twice -P with --bidir.
func (s *session) streamCount() int {
	if s.params.Bidir {
		return 2 * s.params.Parallel
	}
	return s.params.Parallel
}

// nextSender is whether the next stream to be added sends: under --bidir
// the client's first -P streams send and the server's first -P receive.
func (s *session) nextSender() bool {
	if !s.params.Bidir {
		return s.sending
	}
	first := len(s.streams) < s.params.Parallel
	return first == (s.role == 'c')
}

// group is the streams of direction g, in order.
func (s *session) group(g bool) []*stream {
	var out []*stream
	for _, st := range s.streams {
		if st.sender == g {
			out = append(out, st)
		}
	}
	return out
}
