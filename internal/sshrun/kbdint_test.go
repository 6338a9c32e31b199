package sshrun_test

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/sshrun"
)

// Keyboard-interactive gets the password only when it asks for the
// password, alone (issue 24.8: three questions got three copies, "Enter
// OTP token:" got it too); the login error says what the server asked,
// and which method the password went through when it was sent.
func TestKeyboardInteractiveAnswersOnlyThePasswordPrompt(t *testing.T) {
	for _, tc := range []struct {
		name      string
		questions []string
		answered  bool
		reason    string
	}{
		{"OTP prompt", []string{"Enter OTP token: "}, false, `keyboard-interactive asked "Enter OTP token: ", which is not a password prompt: not answered`},
		{"verification code", []string{"Verification code: "}, false, "not a password prompt"},
		{"new password", []string{"New password: "}, false, "not a password prompt"},
		{"three questions", []string{"Password: ", "Password: ", "Password: "}, false, "asked 3 questions at once"},
		{"password and OTP", []string{"Password: ", "OTP: "}, false, "asked 2 questions at once"},
		{"OpenSSH's prompt", []string{"root@esx01's password: "}, true, ""},
		{"ESXi's prompt", []string{"Password: "}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := lab.StartTB(t, loadScenario(t, "healthy"), lab.Options{KeyboardInteractiveOnly: true,
				Faults: map[string]lab.Fault{"esx01": {Hostile: lab.Hostile{Questions: tc.questions}}}})
			pw := l.Hosts()[0].Password
			res := scan(t, newRunner(t, setupOpts{policy: sshrun.HostKeyInsecure, creds: password(l)}), l.Targets()[:1], collect.Options{})
			r := res["esx01"]
			answers := l.Stats("esx01").Answers
			for _, a := range answers {
				if a == pw && !tc.answered {
					t.Errorf("the password was sent to %q", tc.questions)
				}
			}
			if tc.answered {
				if r.Status != hostio.StatusCollected || len(answers) != 1 {
					t.Errorf("%s %q, %d answers", r.Status, r.Reason, len(answers))
				}
				return
			}
			if r.Status != hostio.StatusNotCollected || !strings.Contains(r.Reason, tc.reason) {
				t.Errorf("%s %q; want %q", r.Status, r.Reason, tc.reason)
			}
		})
	}
	// A wrong password: the error says the server got it by
	// keyboard-interactive, once.
	l := lab.StartTB(t, loadScenario(t, "healthy"), lab.Options{KeyboardInteractiveOnly: true})
	res := scan(t, newRunner(t, setupOpts{policy: sshrun.HostKeyInsecure, creds: &sshrun.Credentials{Password: "wrong", HasPassword: true}}), l.Targets()[:1], collect.Options{})
	if r := res["esx01"]; !strings.Contains(r.Reason, "the password was sent once, by keyboard-interactive") {
		t.Errorf("wrong password: %q", r.Reason)
	}
}
