package figures

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure size: a single column of a two-column paper, a little taller.
const figW, figH = 5 * vg.Inch, 3.5 * vg.Inch

// pngDPI is the PNGs' resolution: print resolution, so the 5 in figure
// is 1,500 px wide with the fonts and layout of its SVG.
const pngDPI = 300

// Figure is a plot with its legend in rows of its own below the axes.
// The legend takes from the plot the height it needs, so no entry covers
// a mark whatever the data, which a legend inside the axes cannot
// promise without guessing the room it needs there.
type Figure struct {
	*plot.Plot
	legend []legendEntry
}

type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

func newFigure() *Figure { return &Figure{Plot: plot.New()} }

// addLegend adds an entry to the figure's legend (never to the plot's
// own, which gonum draws over the data).
func (f *Figure) addLegend(name string, thumbs ...plot.Thumbnailer) {
	f.legend = append(f.legend, legendEntry{name: name, thumbs: thumbs})
}

// Legend rows' spacing: between entries of a row, between rows, and
// between the x axis's label and the first row.
const (
	legendColGap = vg.Length(12)
	legendRowGap = vg.Length(2)
	legendTopGap = vg.Length(4)
)

// entryLegend is a gonum legend of the one entry e, in f's legend style,
// drawn from the top left of its canvas.
func (f *Figure) entryLegend(e legendEntry) plot.Legend {
	l := plot.NewLegend()
	l.TextStyle, l.ThumbnailWidth, l.Padding = f.Plot.Legend.TextStyle, f.Plot.Legend.ThumbnailWidth, 0
	l.Top, l.Left = true, true
	l.Add(e.name, e.thumbs...)
	return l
}

// legendRows lays the entries out left to right in rows no wider than
// width: per row, its entries' indices; and the rows' widths.
func (f *Figure) legendRows(width vg.Length) (rows [][]int, widths []vg.Length) {
	for i, e := range f.legend {
		l := f.entryLegend(e)
		w := l.Rectangle(draw.Canvas{}).Size().X
		n := len(rows)
		if n == 0 || widths[n-1]+legendColGap+w > width {
			rows, widths = append(rows, nil), append(widths, -legendColGap)
			n++
		}
		rows[n-1] = append(rows[n-1], i)
		widths[n-1] += legendColGap + w
	}
	return rows, widths
}

// legendRowHeight is the height of one row: an entry's text and the
// descent below its thumbnail that gonum's legend leaves.
func (f *Figure) legendRowHeight() vg.Length {
	sty := f.Plot.Legend.TextStyle
	var h vg.Length
	for _, e := range f.legend {
		h = max(h, sty.Rectangle(e.name).Max.Y)
	}
	return h + sty.FontExtents().Descent
}

// Draw draws the plot in c with its legend's rows, centred, in a strip
// below it.
func (f *Figure) Draw(c draw.Canvas) {
	if len(f.legend) == 0 {
		f.Plot.Draw(c)
		return
	}
	rows, widths := f.legendRows(c.Size().X)
	rowH := f.legendRowHeight()
	strip := legendTopGap + vg.Length(len(rows))*(rowH+legendRowGap)
	f.Plot.Draw(draw.Crop(c, 0, 0, strip, 0))
	top := c.Min.Y + strip - legendTopGap
	for r, row := range rows {
		x := c.Min.X + (c.Size().X-widths[r])/2
		for _, i := range row {
			l := f.entryLegend(f.legend[i])
			w := l.Rectangle(draw.Canvas{}).Size().X
			cell := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: top - rowH}, Max: vg.Point{X: x + w, Y: top}}}
			l.Draw(cell)
			x += w + legendColGap
		}
		top -= rowH + legendRowGap
	}
}

// save writes f to path at the figure size: PNG at pngDPI or SVG, by
// the path's extension.
func (f *Figure) save(path string) error {
	return saveFigure(path, func() (*Figure, error) { return f, nil })
}

// saveFigure builds a figure and writes it to path, PNG or SVG by the
// path's extension (checked first); every figure file is written here.
func saveFigure(path string, build func() (*Figure, error)) error {
	var c vg.CanvasWriterTo
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(figW, figH), vgimg.UseDPI(pngDPI))}
	case ".svg":
		c = vgsvg.New(figW, figH)
	default:
		return fmt.Errorf("%s: want a .png or .svg file name", path)
	}
	f, err := build()
	if err != nil {
		return err
	}
	f.Draw(draw.New(c))
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
