package report

// SetRenderHook makes a test's hook run at the start of every guarded
// section and document (recover.go); nil removes it.
func SetRenderHook(f func(name string)) { renderHook = f }
