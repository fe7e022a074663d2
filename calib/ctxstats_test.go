package calib

import (
	"math"
	"slices"
	"testing"
)

// TestPackedStatsSumLikeGrams: summing packed statistics over any run of
// contexts gives, bit for bit, what summing their full grams gives (the
// folds' sums before the packing), G symmetric included.
func TestPackedStatsSumLikeGrams(t *testing.T) {
	rows, labels := refStudy() // a context probe, imputed cells: uneven columns
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := newCtxStats(d, make([]float64, len(d.Contexts)*d.Q()))
	q := d.Q()
	if st.stride != q*(q+1)/2+2*q+3 {
		t.Fatalf("stride %d for q = %d", st.stride, q)
	}
	order := Permutation(d.Contexts, 3)
	index := map[string]int{}
	for g, c := range d.Contexts {
		index[c] = g
	}
	full, packed := newGram(q), newGram(q)
	for i, id := range order {
		g := index[id]
		full.add(contextGram(d, d.Off[g], d.Off[g+1]))
		packed.addPacked(st, g)
		if i%17 != 0 && i != len(order)-1 {
			continue
		}
		if !bitsEqual(full.G, packed.G) || !bitsEqual(full.c, packed.c) || !bitsEqual(full.e, packed.e) ||
			!bitsEqual([]float64{full.vv, full.vy, full.yy}, []float64{packed.vv, packed.vy, packed.yy}) || full.rows != packed.rows {
			t.Fatalf("after %d contexts the packed sums differ from the grams' sums", i+1)
		}
		if st.vv(g) != contextGram(d, d.Off[g], d.Off[g+1]).vv {
			t.Fatalf("context %d: vv", g)
		}
	}
	if full.rows != d.Rows() {
		t.Errorf("rows %d, want %d", full.rows, d.Rows())
	}
}

// TestOHRowMatchesCenterOH: a row's Õ and H̃ from ohRow and its context's
// means are centerOH's, bit for bit.
func TestOHRowMatchesCenterOH(t *testing.T) {
	rows, labels := refStudy()
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	K := len(d.Attrs)
	mo, mh, o, h := make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K)
	for g := range d.Contexts {
		lo, hi := d.Off[g], d.Off[g+1]
		oc, hc := make([]float64, (hi-lo)*K), make([]float64, (hi-lo)*K)
		d.centerOH(lo, hi, oc, hc)
		oc2, hc2 := make([]float64, (hi-lo)*K), make([]float64, (hi-lo)*K)
		d.centerOHMeans(lo, hi, oc2, hc2, mo, mh)
		if !bitsEqual(oc, oc2) || !bitsEqual(hc, hc2) {
			t.Fatalf("context %d: centerOHMeans differs from centerOH", g)
		}
		for r := lo; r < hi; r++ {
			d.ohRow(r, mo, mh, o, h)
			i := (r - lo) * K
			if !bitsEqual(o, oc[i:i+K]) || !bitsEqual(h, hc[i:i+K]) {
				t.Fatalf("row %d: ohRow %v %v, centerOH %v %v", r, o, h, oc[i:i+K], hc[i:i+K])
			}
		}
	}
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestCenteredRowMatchesJC: CenteredRow with a context's ColumnMeans is
// Design.JC's row, bit for bit, and DropCentered changes nothing else.
func TestCenteredRowMatchesJC(t *testing.T) {
	rows, labels := refStudy()
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q := d.Q()
	m, row := make([]float64, q), make([]float64, q)
	for g := range d.Contexts {
		d.ColumnMeans(d.Off[g], d.Off[g+1], m)
		for r := d.Off[g]; r < d.Off[g+1]; r++ {
			d.CenteredRow(r, m, row)
			if !bitsEqual(row, d.JC[r*q:(r+1)*q]) {
				t.Fatalf("row %d: %v, JC %v", r, row, d.JC[r*q:(r+1)*q])
			}
		}
	}
	dd, _, err := BuildDesign(rows, labels, BuildOptions{DropCentered: true})
	if err != nil {
		t.Fatal(err)
	}
	if dd.JC != nil || !bitsEqual(dd.J, d.J) || !bitsEqual(dd.V, d.V) || !bitsEqual(dd.YStar, d.YStar) || !bitsEqual(dd.S0, d.S0) {
		t.Error("DropCentered: the design differs beyond JC")
	}
}

// TestDesignBuilderOnce: Build uses the builder up.
func TestDesignBuilderOnce(t *testing.T) {
	rows, labels := refStudy()
	b := NewDesignBuilder(BuildOptions{})
	for i := range rows {
		if err := b.Add(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := b.Build(labels); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Build(labels); err == nil {
		t.Error("second Build: no error")
	}
	if err := b.Add(&rows[0]); err == nil {
		t.Error("Add after Build: no error")
	}
}
