package bundle_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/redact"
)

// A token map whose tokens are real names of the results is refused: the
// real host would stay in the bundle, looking like a token.
func TestTokenMapCollisionRefused(t *testing.T) {
	res := []hostio.HostResult{{Host: "esx01"}, {Host: "esx02"}}
	tm := &redact.TokenMap{Tokens: []redact.Token{{Kind: redact.TokenHost, Original: "esx01", Token: "esx02"}}}
	_, err := bundle.Write(&failWriter{n: 1 << 30}, res, bundle.Options{Redact: true, Tokens: tm, Analyze: testAnalyze})
	var ce *redact.TokenCollisionError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `host "esx02"`) {
		t.Fatalf("err = %v; want a token collision naming esx02", err)
	}
	// A map without collisions is fine.
	tm = &redact.TokenMap{Tokens: []redact.Token{{Kind: redact.TokenHost, Original: "esx01", Token: "host-007"}}}
	if _, err := bundle.Write(&failWriter{n: 1 << 30}, res, bundle.Options{Redact: true, Tokens: tm, Analyze: testAnalyze}); err != nil {
		t.Fatal(err)
	}
}
