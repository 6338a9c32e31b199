package adversarial

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// unsafeChars is every character a human sink must never emit: all C0
// controls (newline and tab too: they are escaped in one-line sinks and
// kept, as themselves, where a line break is legal), DEL, all C1 controls,
// every Unicode format character (category Cf: bidi overrides and
// isolates, zero-width characters, BOM, tag characters, ...), and the line
// and paragraph separators.
func unsafeChars() []string {
	var out []string
	for r := rune(0); r < 0x20; r++ {
		out = append(out, string(r))
	}
	out = append(out, "\x7f")
	for r := rune(0x80); r < 0xa0; r++ {
		out = append(out, string(r))
	}
	for _, rg := range unicode.Cf.R16 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			out = append(out, string(r))
		}
	}
	for _, rg := range unicode.Cf.R32 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			out = append(out, string(r))
		}
	}
	return append(out, "\u2028", "\u2029")
}

// invalidUTF8 are byte strings that are not UTF-8: every lone byte
// 0x80-0xFF, overlong encodings, encoded surrogates, code points above
// U+10FFFF and sequences cut short.
func invalidUTF8() []string {
	var out []string
	for b := 0x80; b <= 0xff; b++ {
		out = append(out, string([]byte{byte(b)}))
	}
	out = append(out, "\xc0\xaf", "\xe0\x80\xaf", "\xf0\x80\x80\xaf", "\xed\xa0\x80", "\xed\xbf\xbf", "\xf4\x90\x80\x80",
		"\xe2\x80", "\xf0\x9f\x98", "\xe2", "\x1b\xc3")
	for _, s := range out {
		if utf8.ValidString(s) {
			panic("valid: " + s)
		}
	}
	return out
}

// sgrHostile is a colour sequence lipgloss never writes (blink, reverse,
// strike): finding it raw in a frame means host text got through.
const sgrHostile = "\x1b[5;7;9m"

// sequences are whole attacks as a terminal would act on them.
func sequences() []string {
	return []string{
		"\x1b]0;PWNED\x07\x1b[2J",                                // set title, clear screen (issue 17)
		"\x1b]52;c;cm0gLXJmIC8K\x07",                             // OSC 52: write the clipboard
		"\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\", // OSC 8 hyperlink
		"\x1bP+q544e\x1b\\",                                      // DCS: request termcap
		"\x1b[6n",                                                // report cursor position (answer typed into the shell)
		sgrHostile + "hidden\x1b[0m",                             // colours
		"\x9b2J\x9d0;c1\x9c",                                     // the same as C1 controls
		"\u202eexe.txt\u202c", "\u2066isolate\u2069",             // bidi
		"zero\u200bwidth\u200d\ufeff",
		"\r\x1b[Koverwritten line",
		"\x1b[1000;1000H\x1b[31mfake finding: OK\x1b[0m",
	}
}

// longValues are names far longer than any real one, with controls inside.
func longValues() []string {
	return []string{
		strings.Repeat("A", 70000),
		strings.Repeat("x\x1b[2J", 2000),
		strings.Repeat("日本\u202e", 1000),
		strings.Repeat("\xff", 2048),
	}
}

// batches groups every payload so that one analysis carries several of
// them (every payload still goes through every field).
func batches(size int) []string {
	var all []string
	all = append(all, unsafeChars()...)
	all = append(all, invalidUTF8()...)
	var out []string
	for i := 0; i < len(all); i += size {
		out = append(out, strings.Join(all[i:min(i+size, len(all))], "|"))
	}
	out = append(out, sequences()...)
	return append(out, longValues()...)
}
