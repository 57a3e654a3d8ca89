package plot

import (
	"image/color"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Colours shared by the pictures.
var (
	colData     = color.NRGBA{R: 20, G: 70, B: 160, A: 36}
	colDataKey  = color.NRGBA{R: 20, G: 70, B: 160, A: 255}
	colClock    = color.NRGBA{R: 200, G: 30, B: 30, A: 255}
	colAperture = color.NRGBA{R: 230, G: 60, B: 40, A: 70}
	colNeighbor = color.NRGBA{R: 120, G: 120, B: 120, A: 255}
	colMargin   = color.NRGBA{R: 0, G: 120, B: 60, A: 255}
	colWarn     = color.NRGBA{R: 190, G: 0, B: 0, A: 255}
	colText     = color.NRGBA{A: 255}
)

// note is a text at data coordinates, shifted by an offset in points.
type note struct {
	x, y   float64
	text   string
	size   float64 // points
	color  color.Color
	xalign draw.XAlignment
	yalign draw.YAlignment
	dx, dy vg.Length
}

// notes draws texts; it is a gonum Plotter.
type notes []note

func (ns notes) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, n := range ns {
		sty := text.Style{
			Color:   n.color,
			Font:    font.From(gplot.DefaultFont, vg.Points(n.size)),
			XAlign:  n.xalign,
			YAlign:  n.yalign,
			Handler: gplot.DefaultTextHandler,
		}
		if sty.Color == nil {
			sty.Color = colText
		}
		c.FillText(sty, vg.Point{X: trX(n.x) + n.dx, Y: trY(n.y) + n.dy}, n.text)
	}
}

// polylines strokes many polylines in one style (the eye's traces): one plotter
// instead of thousands keeps drawing and SVG size down.
type polylines struct {
	lines []plotter.XYs
	style draw.LineStyle
	key   draw.LineStyle // legend thumbnail (opaque)
}

func (pl polylines) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	pts := make([]vg.Point, 0, 16)
	for _, l := range pl.lines {
		pts = pts[:0]
		for _, xy := range l {
			pts = append(pts, vg.Point{X: trX(xy.X), Y: trY(xy.Y)})
		}
		c.StrokeLines(pl.style, c.ClipLinesXY(pts)...)
	}
}

func (pl polylines) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(pl.key, c.Min.X, y, c.Max.X, y)
}

// segment is a straight line plotter between two data points.
func segment(x0, y0, x1, y1 float64, style draw.LineStyle) *plotter.Line {
	return &plotter.Line{XYs: plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y1}}, LineStyle: style}
}

// rect is a filled rectangle in data coordinates, without outline (a gonum
// Polygon would stroke its edge even with a zero line style).
type rect struct {
	x0, y0, x1, y1 float64
	fill           color.Color
}

func box(x0, y0, x1, y1 float64, fill color.Color) rect { return rect{x0, y0, x1, y1, fill} }

func (r rect) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	pts := c.ClipPolygonXY([]vg.Point{
		{X: trX(r.x0), Y: trY(r.y0)}, {X: trX(r.x1), Y: trY(r.y0)},
		{X: trX(r.x1), Y: trY(r.y1)}, {X: trX(r.x0), Y: trY(r.y1)},
	})
	c.FillPolygon(r.fill, pts)
}

func (r rect) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(r.fill, []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y},
	})
}

// outline is an unfilled rectangle.
func outline(x0, y0, x1, y1 float64, style draw.LineStyle) *plotter.Polygon {
	return &plotter.Polygon{
		XYs:       []plotter.XYs{{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}},
		LineStyle: style,
	}
}

func lineStyle(c color.Color, widthPt float64, dashes ...vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(widthPt), Dashes: dashes}
}
