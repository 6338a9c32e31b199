package hostio

import (
	"fmt"
	"io"
)

// Caps on the local files read whole, so that a wrong path (/dev/zero, a
// disk image) fails at once instead of filling memory.
const (
	MaxPasswordFile   = 64 << 10
	MaxConfigFile     = 4 << 20 // ssh_config, config.yaml, private keys, hosts files
	MaxKnownHostsFile = 64 << 20
	MaxTokenMapFile   = 64 << 20
)

// ReadFileCapped reads a whole file of at most limit bytes; a larger one is
// an error (only limit+1 bytes are read to find out). The file is opened
// with OpenInput: a pipe is read within InputWait, a device is refused.
func ReadFileCapped(path string, limit int64) ([]byte, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAllCapped(f, path, limit)
}

// ReadAllCapped reads r to the end, refusing more than limit bytes; name
// labels r in the error.
func ReadAllCapped(r io.Reader, name string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %s: not the file expected here", name, ByteSize(limit))
	}
	return b, nil
}
