package redact

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// What the doctor adds to results is redacted by format even when the
// caller names nothing (redact of a --no-redact bundle).
func TestRedactDoctorIdentifiers(t *testing.T) {
	fp := "SHA256:tadlqXdmq5CMgjCsw6QH5bUFDKgzvN3T5DU6OpZS1u0"
	res := []hostio.HostResult{{
		Host: "esx01", Address: "esx01-mgmt.corp.example.com:2201",
		Reason: "authentication failed for jsmith@esx01-mgmt.corp.example.com:2201: wrong password (tried password)",
		Notes:  []string{"Permanently added [127.0.0.1]:2222 (ssh-ed25519 " + fp + ") to /home/jsmith/.ssh/known_hosts"},
	}, {
		Host: "esx02", Address: "127.0.0.1:2222",
		Captures: []hostio.Capture{{Error: "cannot connect to 10.9.8.7:22 via jump host bastion01 (bastion01.corp.example.com:22): refused"}},
	}}
	r := NewRedactor()
	r.Learn(res)
	r.AddIdentifier(TokenLocalPath, "/srv/people/jane", "~")
	out := r.Results(res)
	var all []string
	for _, hr := range out {
		all = append(all, hr.Host, hr.Address, hr.Reason)
		all = append(all, hr.Notes...)
		for _, c := range hr.Captures {
			all = append(all, c.Error)
		}
	}
	all = append(all, r.Text("key file /srv/people/jane/.ssh/id_ed25519 and /srv/people/janet"))
	text := strings.Join(all, "\n")
	for _, leak := range []string{"jsmith", "corp.example.com", "esx01-mgmt", "127.0.0.1:2222", "[127.0.0.1]:2222", fp, "10.9.8.7", "bastion01", "/srv/people/jane/"} {
		if strings.Contains(text, leak) {
			t.Errorf("%q left in:\n%s", leak, text)
		}
	}
	for _, want := range []string{"user-01@host-", "SHA256:fingerprint-0001", "/home/user-01/.ssh/known_hosts", "~/.ssh/id_ed25519", "/srv/people/janet"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
}
