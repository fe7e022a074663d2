package engine

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestItemCompact: an Item is 64 bytes and holds no pointer, so a plan's
// Items are memory the collector does not scan.
func TestItemCompact(t *testing.T) {
	if n := unsafe.Sizeof(Item{}); n != 64 {
		t.Errorf("Item is %d bytes, want 64", n)
	}
	typ := reflect.TypeFor[Item]()
	for i := range typ.NumField() {
		switch f := typ.Field(i); f.Type.Kind() {
		case reflect.Int16, reflect.Int32, reflect.Uint16:
		case reflect.Array:
			if f.Type.Elem().Kind() != reflect.Uint8 {
				t.Errorf("field %s is %s", f.Name, f.Type)
			}
		default:
			t.Errorf("field %s is %s: an Item holds no pointer", f.Name, f.Type)
		}
	}
}

// TestPlanInt16Limits: what an Item keeps in an int16 is bounded when
// planning, with an error naming the field, not wrapped around.
func TestPlanInt16Limits(t *testing.T) {
	ctx := context.Background()
	spec := batchedSpec(t, math.MaxInt16+1, 1)
	st, _ := openStore(t, spec.Dataset)
	if _, err := NewPlan(ctx, st, spec); err == nil || !strings.Contains(err.Error(), "orders: 32768, at most 32767") {
		t.Errorf("orders 32768: %v", err)
	}
	if _, err := EstimatePlan(ctx, st, spec); err == nil || !strings.Contains(err.Error(), "orders: 32768") {
		t.Errorf("estimate, orders 32768: %v", err)
	}
	spec.Orders = math.MaxInt16
	spec.Dataset.Contexts[0].Candidates = slices.Repeat(spec.Dataset.Contexts[0].Candidates[:1], math.MaxInt16+1)
	if _, err := NewPlan(ctx, st, spec); err == nil || !strings.Contains(err.Error(), "candidates, at most 32767 in a batched call") {
		t.Errorf("32768 candidates: %v", err)
	}
}
