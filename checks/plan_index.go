package checks

import "slices"

// findingIndex is the fleet's failing, unsuppressed findings, indexed
// once per analysis: by cause key (a typed Cause, never a formatted
// string) and by the cause each names, its effects in key order. A
// planner reads it for one host without walking the whole fleet.
type findingIndex struct {
	byKey   map[Cause]Finding
	effects map[Cause][]Finding
}

// newFindingIndex indexes the failing, unsuppressed findings of fs (the
// failures to collect aside): the last finding of a key stands.
func newFindingIndex(fs []Finding) *findingIndex {
	x := &findingIndex{byKey: map[Cause]Finding{}, effects: map[Cause][]Finding{}}
	for _, f := range fs {
		if f.Status != StatusFail || f.Suppressed || f.RuleID == CollectionFailed {
			continue
		}
		x.byKey[causeOf(f)] = f
	}
	for _, f := range x.byKey {
		if f.CausedBy != nil {
			x.effects[*f.CausedBy] = append(x.effects[*f.CausedBy], f)
		}
	}
	for _, es := range x.effects {
		slices.SortFunc(es, func(a, b Finding) int { return compareCauses(causeOf(a), causeOf(b)) })
	}
	return x
}

// compareCauses orders causes as their keys ("RULE|host|subject") sort.
func compareCauses(a, b Cause) int {
	return compareKeys(a.RuleID, a.Host, a.Subject, b.RuleID, b.Host, b.Subject)
}

// compareKeys compares the strings a1|a2|a3 and b1|b2|b3 without
// building them.
func compareKeys(a1, a2, a3, b1, b2, b3 string) int {
	as, bs := [3]string{a1, a2, a3}, [3]string{b1, b2, b3}
	i, j := 0, 0 // part of a, b
	x, y := 0, 0 // byte within it
	for {
		ca, oka := keyByte(as, &i, &x)
		cb, okb := keyByte(bs, &j, &y)
		switch {
		case !oka && !okb:
			return 0
		case !oka:
			return -1
		case !okb:
			return 1
		case ca != cb:
			if ca < cb {
				return -1
			}
			return 1
		}
	}
}

// keyByte is the next byte of parts joined by '|', advancing part *i at
// byte *x; ok=false at the end.
func keyByte(parts [3]string, i, x *int) (byte, bool) {
	for *i < len(parts) {
		if *x < len(parts[*i]) {
			c := parts[*i][*x]
			*x++
			return c, true
		}
		if *i == len(parts)-1 {
			*i++
			return 0, false
		}
		*i++
		*x = 0
		return '|', true
	}
	return 0, false
}
