package facts

// Memo returns the value f computes for key, computing it once per model:
// what the rules derive from the whole fleet (the PVRDMA vDS, every host's
// readiness, the possible probe peers) is derived once per run instead of
// once per host, at a cost of hosts^2. f must be a pure function of the
// fleet the model was derived from; it runs outside any lock (it may memo
// what it derives from), so concurrent callers may both compute it, and
// one value wins.
func (d *DataPath) Memo(key string, f func() any) any {
	if d == nil {
		return f()
	}
	if v, ok := d.memo.Load(key); ok {
		return v
	}
	v, _ := d.memo.LoadOrStore(key, f())
	return v
}
