// Package plot draws the RGMII timing pictures (eye, bathtub, scan maps) with gonum/plot.
// Outside the bus: it draws what rgmiiwire and scan computed, and models nothing.
//
// It draws mesonemu's RGMII timing pictures with gonum.org/v1/plot:
//
//   - Eye: a data line as the receiver's flop sees it, many unit intervals of
//     random data with Gaussian edge jitter overlaid over two unit intervals
//     centred on the sampling clock edge, with the setup/hold aperture shaded;
//   - Bathtub: bit error rate (log scale) against the sampling offset over one
//     unit interval, with the operating point and the pass threshold marked;
//   - ScanMap: a heat map of a scan.Result (TXDLY × PHY TX delay, or (TXDLY, PHY)
//     × board skew) coloured by log10 of the measured loss, passing cells marked.
//
// Every function writes one image to an io.Writer in the format asked for ("png"
// or "svg"; FormatOf maps a file name's extension) at a Size in pixels (SVG uses
// the same numbers as CSS pixels, 96 per inch). Titles name the board, the
// driver and the delays. The pictures only draw what rgmiiwire and scan computed;
// nothing here models anything.
//
// Drawing choices not in docs/reference/rgmii-timing.md (assumptions, cosmetic only):
//   - the eye draws each transition as a linear ramp of EyeRampPs centred on the
//     jittered edge time; the wire model's edges are instantaneous and a sample
//     is judged only by where the edge time falls against the aperture;
//   - the bathtub's BER axis ends at 1e-16 or two decades below the operating
//     point, whichever is lower (but not below 1e-300);
//   - the scan map colours a cell with no lost frame at the bottom of the colour
//     scale, floor(log10(1/frames) - 0.5): at least half a decade below a
//     single lost frame.
package plot
