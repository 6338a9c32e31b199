package bundle

// AtomicWrite is atomicWrite, for the external tests.
var AtomicWrite = atomicWrite
