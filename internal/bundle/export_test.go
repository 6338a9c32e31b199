package bundle

// AtomicWrite is atomicWrite, for the external tests.
var AtomicWrite = atomicWrite

// FindDerivedMember and WriteTrailer let the external tests locate and
// forge the derived files' member.
var (
	FindDerivedMember = findDerivedMember
	WriteTrailer      = writeTrailer
)
