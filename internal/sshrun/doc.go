// Package sshrun is the SSH transport: a hostio.Runner that logs in the way
// `ssh` does (keys, agent, keyboard-interactive and password, ~/.ssh/config,
// ProxyJump bastions), checks host keys against known_hosts, and runs only
// allowlisted command lines (collect.CheckAllowed, checked again right
// before a session is opened), with output caps and stall detection.
package sshrun
