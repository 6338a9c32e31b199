package report

import (
	"html/template"
	"io"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
)

// writeHTMLReport writes the report as one self-contained HTML page (inline CSS,
// no scripts, no external assets): the verdict on top, hosts, findings with
// collapsible evidence. Every value goes through html/template escaping.
func writeHTMLReport(w io.Writer, r *Report) error {
	r = ForHumans(r)
	groups := r.RootsBySeverity()
	type sevGroup struct {
		Severity string
		Findings []checks.Finding
	}
	var sev []sevGroup
	for _, s := range []checks.Severity{checks.Critical, checks.Warning, checks.Info} {
		if len(groups[s]) > 0 {
			sev = append(sev, sevGroup{string(s), groups[s]})
		}
	}
	var ne []checks.Finding
	for _, f := range r.Findings {
		if f.Status == checks.StatusNotEvaluated {
			ne = append(ne, f)
		}
	}
	return htmlTemplate.Execute(w, map[string]any{
		"R": r, "Groups": sev, "NotEvaluated": ne, "VerdictClass": r.VerdictLevel(), "Plans": r.Plans, "Matrix": r.Paths.matrix(),
	})
}

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"upper": func(s string) string { return strings.ToUpper(s) },
	"evidence": func(e checks.Evidence) string {
		return EvidenceLine(e)
	},
	"hostClass":    Host.level,
	"rdmaCell":     func(h Host) string { return cellCount(h.RDMADeviceCount()) },
	"vmCell":       func(h Host) string { return cellCount(h.PVRDMAVMCount()) },
	"notEvaluated": func(m string) string { return strings.TrimPrefix(m, "not evaluated: ") },
	"ruleTitle":    func(r *Report, id string) string { return r.Rules[id].Title },
	"consequences": func(r *Report, f checks.Finding) []checks.Finding { return r.ConsequencesOf(f) },
	"therefore":    therefore,
	"resolves":     ResolvesText,
	"ruleDocs":     func(r *Report, id string) []string { return r.Rules[id].Docs },
	"isURL":        func(s string) bool { return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") },
	"urlPart": func(s string) string {
		u, _, _ := strings.Cut(s, " ")
		return u
	},
}).Parse(`{{define "consequences"}}
{{- range .}}
<div class="consequence"><span class="why">{{therefore .}}:</span> <span class="badge {{.Severity}}">{{.RuleID}}</span> <span class="subject">{{.Subject}}</span>
<p>{{.Message}}</p>
{{- template "evidence" .}}
</div>
{{- end}}
{{- end}}
{{- define "evidence"}}
{{- $host := .Host}}
{{- if .Evidence}}
<details><summary>Evidence ({{len .Evidence}})</summary>
{{- range .Evidence}}
<pre>{{if and .Host (ne .Host $host)}}{{.Host}}: {{end}}{{evidence .}}</pre>
{{- end}}
</details>
{{- end}}
{{- end}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pvrdma-doctor report</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:70rem;padding:1rem 2rem;color:#1d1d1f;background:#fff}
h1{font-size:1.4rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}
.meta{color:#666;font-size:.9rem}
.verdict{font-size:1.2rem;font-weight:600;padding:.8rem 1rem;border-radius:6px;margin:1rem 0}
.verdict.critical{background:#fde8e8;color:#9b1c1c;border-left:6px solid #c81e1e}
.verdict.warning{background:#fdf6e3;color:#8a5300;border-left:6px solid #e3a008}
.verdict.ok{background:#e6f4ea;color:#1e6b37;border-left:6px solid #31a354}
table{border-collapse:collapse;width:100%;font-size:.92rem}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #eee;vertical-align:top}
th{background:#f6f6f6}td.num{text-align:right}
.badge{display:inline-block;font-size:.75rem;font-weight:700;padding:.1rem .45rem;border-radius:3px;color:#fff;text-transform:uppercase}
.badge.critical{background:#c81e1e}.badge.warning{background:#c27803}.badge.info{background:#1c64f2}.badge.ok{background:#31a354}
tr.critical td:first-child{border-left:4px solid #c81e1e}tr.warning td:first-child{border-left:4px solid #e3a008}tr.ok td:first-child{border-left:4px solid #31a354}
.finding{border:1px solid #e5e5e5;border-radius:6px;padding:.6rem 1rem;margin:.8rem 0}
.finding h3{font-size:1rem;margin:.2rem 0 .4rem}.subject{color:#444;font-weight:400}
.fix{background:#f3faf5;border-left:3px solid #31a354;padding:.4rem .7rem;margin:.5rem 0;white-space:pre-wrap}
details{margin:.4rem 0}summary{cursor:pointer;color:#555}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
pre{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all;margin:.3rem 0}
.docs{font-size:.85rem;color:#555}
.consequence{border-left:3px solid #ccc;margin:.5rem 0 .5rem .5rem;padding:.2rem .8rem}
.consequence .why{font-weight:600;color:#555}
ol.plan li{margin:.35rem 0}.resolves{font-size:.85rem;color:#555}
table.matrix{width:auto}table.matrix td{text-align:center;font-family:ui-monospace,Menlo,Consolas,monospace}
td.jumbo{background:#e6f4ea}td.std{background:#fdf6e3}td.warning{background:#fde8c8}td.critical{background:#fde8e8;color:#9b1c1c;font-weight:700}td.self,td.none{color:#aaa}
</style>
</head>
<body>
<h1>pvrdma-doctor report</h1>
<div class="meta">{{.R.Source}} · pvrdma-doctor {{.R.Tool.Version}} · {{.R.GeneratedAt.Format "2006-01-02 15:04:05 UTC"}} · schema {{.R.SchemaVersion}}</div>
<div class="verdict {{.VerdictClass}}" id="verdict">{{.R.Verdict}}</div>
<table>
<tr><th>critical</th><th>warning</th><th>info</th><th>consequences</th><th>not evaluated</th><th>passed</th><th>suppressed</th></tr>
<tr><td class="num">{{.R.Summary.Critical}}</td><td class="num">{{.R.Summary.Warning}}</td><td class="num">{{.R.Summary.Info}}</td><td class="num">{{.R.Summary.Consequences}}</td><td class="num">{{.R.Summary.NotEvaluated}}</td><td class="num">{{.R.Summary.Passed}}</td><td class="num">{{.R.Summary.Suppressed}}</td></tr>
</table>
<h2>Hosts</h2>
<table>
<tr><th>host</th><th>verdict</th><th>ESXi</th><th>RDMA devices</th><th>PVRDMA VMs</th></tr>
{{- range .R.Hosts}}
<tr class="{{hostClass .}}"><td>{{.Host}}</td><td>{{.Verdict}}{{range .Notes}}<br><small>note: {{.}}</small>{{end}}</td><td>{{.Version}}</td><td class="num">{{rdmaCell .}}</td><td class="num">{{vmCell .}}</td></tr>
{{- end}}
</table>
{{- if and .R.Paths (not .Matrix)}}
<h2>Paths</h2>
<p class="meta">{{len .R.Paths.Hosts}} hosts, {{len .R.Paths.Pairs}} measured pairs: too many for a matrix; fleet minimum path MTU {{.R.Paths.FleetMinMTU}}{{with .R.Paths.MinPair}}, {{.}}{{end}}. The pairs that are not ok:</p>
<table>
<tr><th>from</th><th>to</th><th>status</th><th>path MTU</th><th>configured</th></tr>
{{- range .R.Paths.NotOK}}
<tr><td>{{.From}}</td><td>{{.To}} ({{.Target}})</td><td>{{.Status}}</td><td class="num">{{.PathMTU}}</td><td class="num">{{.ConfiguredMTU}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- with .Matrix}}
<h2>Path matrix</h2>
<p class="meta">Path MTU in bytes measured from the row's PVRDMA vmknic to the column's (don't-fragment vmkping; fleet minimum {{$.R.Paths.FleetMinMTU}}{{with $.R.Paths.MinPair}}, {{.}}{{end}}). ! blocked on the way, &lt; refused by the sender's vmknic MTU, -- unreachable, ~ lossy, . not probed.</p>
<table class="matrix">
<tr><th>from \ to</th>{{range $.R.Paths.Hosts}}<th>{{.}}</th>{{end}}</tr>
{{- range .}}
<tr><th>{{.Host}}</th>{{range .Cells}}<td class="{{.Class}}"{{with .Title}} title="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{- end}}
</table>
{{- end}}
{{- if .R.Guests}}
<h2>Guests</h2>
<table>
<tr><th>guest</th><th>verdict</th><th>kernel</th><th>adapter: host side &lt;-&gt; guest side</th></tr>
{{- range .R.Guests}}
<tr class="{{hostClass .}}"><td>{{.Host}}</td><td>{{.Verdict}}</td><td>{{.Version}}</td><td>{{range $i, $a := .Adapters}}{{if $i}}<br>{{end}}{{$a.Text}}{{else}}no PVRDMA device{{end}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- $r := .R}}
{{- range .Groups}}
<h2><span class="badge {{.Severity}}">{{upper .Severity}}</span> {{len .Findings}} root cause{{if ne (len .Findings) 1}}s{{end}}</h2>
{{- range .Findings}}
{{- $host := .Host}}
<div class="finding">
<h3><span class="badge {{.Severity}}">{{.RuleID}}</span> {{.Host}} <span class="subject">— {{.Subject}}</span></h3>
<div class="title">{{ruleTitle $r .RuleID}}</div>
<p>{{.Message}}</p>
{{- template "evidence" .}}
{{- if .Fix}}
<div class="fix"><strong>Fix:</strong> {{.Fix}}</div>
{{- end}}
{{- with ruleDocs $r .RuleID}}
<div class="docs">Docs:{{range .}} {{if isURL .}}<a href="{{urlPart .}}" rel="noreferrer">{{.}}</a>{{else}}{{.}}{{end}};{{end}}</div>
{{- end}}
{{- template "consequences" (consequences $r .)}}
</div>
{{- end}}
{{- end}}
{{- if .Plans}}
<h2>Fix plan</h2>
<p class="meta">One plan per host, in order; each step names the findings it resolves.</p>
{{- range .Plans}}
<h3>{{.Host}}</h3>
<ol class="plan">
{{- range .Steps}}
<li>{{if .Optional}}<em>(optional)</em> {{end}}{{.Text}}{{if and .Command (ne .Action "verify")}} Run: <code>{{.Command}}</code>{{end}}{{if .Resolves}}<div class="resolves">resolves: {{resolves .}}</div>{{end}}</li>
{{- end}}
</ol>
{{- end}}
{{- end}}
{{- if .NotEvaluated}}
<h2>Not evaluated ({{len .NotEvaluated}})</h2>
<details><summary>Checks that could not run, and why</summary>
<table>
<tr><th>host</th><th>rule</th><th>subject</th><th>reason</th></tr>
{{- range .NotEvaluated}}
<tr><td>{{.Host}}</td><td>{{.RuleID}}</td><td>{{.Subject}}</td><td>{{notEvaluated .Message}}</td></tr>
{{- end}}
</table>
</details>
{{- end}}
{{- if .R.Suppressed}}
<h2>Suppressed ({{len .R.Suppressed}})</h2>
<table>
<tr><th>host</th><th>rule</th><th>subject</th><th>reason</th></tr>
{{- range .R.Suppressed}}
<tr><td>{{.Host}}</td><td>{{.RuleID}}</td><td>{{.Subject}}</td><td>{{.SuppressReason}}</td></tr>
{{- end}}
</table>
{{- else if .R.Summary.Suppressed}}
<p>{{.R.Summary.Suppressed}} suppressed finding(s) not shown (--show-suppressed lists them).</p>
{{- end}}
{{- range .R.Notes}}
<p class="meta">note: {{.}}</p>
{{- end}}
</body>
</html>
`))
