package jsonstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

type leaf struct {
	A string            `json:"a"`
	B int               `json:"b,omitempty"`
	C []string          `json:"c"`
	M map[string]int    `json:"m,omitempty"`
	T time.Time         `json:"t,omitzero"`
	P *leaf             `json:"p,omitempty"`
	Z struct{ X int }   `json:"z,omitzero"`
	H string            `json:"-"`
	S int               `json:"s,string"`
	R json.RawMessage   `json:"r,omitempty"`
	E interface{}       `json:"e"`
	U *upper            `json:"u,omitempty"`
	Q map[string][]leaf `json:"q,omitempty"`
}

type upper struct{ V string }

func (u *upper) MarshalJSON() ([]byte, error) { return json.Marshal(strings.ToUpper(u.V)) }

type pmarsh struct{ V string }

func (p *pmarsh) MarshalJSON() ([]byte, error) { return json.Marshal("p:" + p.V) }

type doc struct {
	Name   string   `json:"name"`
	Leaves []leaf   `json:"leaves"`
	Empty  []leaf   `json:"empty"`
	Nil    []leaf   `json:"nil"`
	Ptr    *doc     `json:"ptr,omitempty"`
	Bytes  []byte   `json:"bytes"`
	Inner  struct{} `json:"inner"`
	embed
	Custom  pmarsh   `json:"custom"`
	Customs []pmarsh `json:"customs"`
	HTML    string   `json:"html"`
	Nested  [][]leaf `json:"nested"`
}

type embed struct {
	Flat string `json:"flat"`
}

type plain struct {
	Name   string   `json:"name"`
	Leaves []leaf   `json:"leaves"`
	Empty  []leaf   `json:"empty,omitempty"`
	Nil    []leaf   `json:"nil"`
	Ptr    *plain   `json:"ptr,omitempty"`
	Custom pmarsh   `json:"custom"`
	HTML   string   `json:"html"`
	Nested [][]leaf `json:"nested"`
	Any    any      `json:"any"`
	Items  []item   `json:"items"`
	Obj    item     `json:"obj"`
}

// item is taken apart (no embedded or string-encoded fields).
type item struct {
	K     string    `json:"k"`
	Sub   []item    `json:"sub,omitempty"`
	At    time.Time `json:"at"`
	Maybe *item     `json:"maybe"`
	Zero  item2     `json:"zero,omitzero"`
	Empty []string  `json:"empty"`
}

type item2 struct {
	N int `json:"n"`
}

func randItem(r *rand.Rand, depth int) item {
	it := item{K: "k<", At: time.Unix(int64(r.IntN(99)), 0).UTC(), Zero: item2{N: r.IntN(2)}}
	if r.IntN(2) == 0 {
		it.Empty = []string{}
	}
	if depth > 0 {
		for range r.IntN(3) {
			it.Sub = append(it.Sub, randItem(r, depth-1))
		}
		if r.IntN(2) == 0 {
			m := randItem(r, depth-1)
			it.Maybe = &m
		}
	}
	return it
}

func randLeaf(r *rand.Rand, depth int) leaf {
	l := leaf{A: strings.Repeat("<&>\"x", r.IntN(3)), B: r.IntN(3), S: r.IntN(5), E: r.IntN(2) == 0}
	for range r.IntN(3) {
		l.C = append(l.C, "c")
	}
	if r.IntN(2) == 0 {
		l.M = map[string]int{"b": 1, "a": 2}
	}
	if r.IntN(3) == 0 {
		l.T = time.Unix(int64(r.IntN(1e9)), 0).UTC()
	}
	if depth > 0 && r.IntN(2) == 0 {
		p := randLeaf(r, depth-1)
		l.P = &p
	}
	if r.IntN(3) == 0 {
		l.U = &upper{V: "up"}
	}
	if r.IntN(4) == 0 {
		l.R = json.RawMessage(`{"raw":[1,2]}`)
	}
	if r.IntN(4) == 0 {
		l.Q = map[string][]leaf{"k": {{A: "q"}}}
	}
	l.Z.X = r.IntN(2)
	return l
}

// The stream is byte for byte what json.Encoder with SetIndent writes, or
// json.Marshal without an indent.
func TestWriteMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		var vals []any
		d := doc{Name: "d", Empty: []leaf{}, Bytes: []byte("hi"), HTML: "<b>&"}
		p := plain{Name: "p", Custom: pmarsh{V: "c"}, HTML: "a<b", Obj: randItem(r, 4)}
		for range r.IntN(3) {
			p.Items = append(p.Items, randItem(r, 4))
		}
		for range r.IntN(4) {
			d.Leaves = append(d.Leaves, randLeaf(r, 2))
			p.Leaves = append(p.Leaves, randLeaf(r, 2))
			d.Nested = append(d.Nested, []leaf{randLeaf(r, 1)})
			p.Nested = append(p.Nested, []leaf{randLeaf(r, 1)}, nil)
			d.Customs = append(d.Customs, pmarsh{V: "x"})
		}
		if r.IntN(2) == 0 {
			d.Ptr = &doc{Name: "inner"}
			p.Ptr = &plain{Name: "inner", Any: []leaf{randLeaf(r, 1)}}
		}
		vals = append(vals, &d, d, &p, p, []plain{p, p}, nil, 3, "s", map[string]plain{"k": p})
		for _, v := range vals {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := Write(&got, v, "  "); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Fatalf("case %d %T:\ngot:\n%s\nwant:\n%s", i, v, got.String(), want.String())
			}
			compact, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			got.Reset()
			if err := Write(&got, v, ""); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(compact)+"\n" {
				t.Fatalf("case %d %T compact:\ngot:\n%s\nwant:\n%s", i, v, got.String(), compact)
			}
		}
	}
}

type failing struct{}

func (failing) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

type errw struct{ n int }

func (e *errw) Write(p []byte) (int, error) {
	e.n++
	return 0, errors.New("disk full")
}

// A value that cannot be marshalled, and a writer that fails, are errors.
func TestWriteErrors(t *testing.T) {
	if err := Write(&bytes.Buffer{}, struct {
		F []failing `json:"f"`
	}{F: []failing{{}}}, "  "); err == nil {
		t.Error("a failing marshaler was not an error")
	}
	big := plain{Name: strings.Repeat("x", 200<<10)}
	if err := Write(&errw{}, big, "  "); err == nil {
		t.Error("a failing writer was not an error")
	}
}
