// Package adversarial holds pvrdma-doctor's adversarial test campaign (issue
// 17), kept as tests: hostile text from hosts through every output format
// and the TUI, hostile support-bundle inputs, and a credential-leak sweep
// of every artefact of a scan. It has no code of its own; see the
// README's "Security" section for what the campaign tries and its figures.
package adversarial
