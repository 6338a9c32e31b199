package testutil

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
)

// SyncBuffer is a bytes.Buffer safe for a writer and a polling reader.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// NewKey returns a new ed25519 private key and its SSH signer.
func NewKey(t testing.TB) (ed25519.PrivateKey, ssh.Signer) {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return k, s
}
