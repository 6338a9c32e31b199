package textsafe

import "strings"

// ShellQuote quotes s for a POSIX shell (ESXi's busybox sh, bash, dash)
// when it needs it: bare when it holds only characters no shell treats
// specially, else in single quotes, each single quote inside written as
// quote, backslash, quote, quote. The shell then reads exactly s. s should
// be IsSafe: a control character inside quotes is read as itself, but
// would be shown escaped, so what a person copies would differ.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
