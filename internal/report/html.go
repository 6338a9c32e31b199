package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
)

// writeHTMLReport writes the report as one self-contained HTML page (inline CSS
// and SVG, no scripts, no external assets, printable): the verdict on top,
// the problems (grouped findings) linked to their details, what could not
// be collected (one line per cause), hosts, each host's data path drawn as
// an SVG (topology view model), the path-MTU matrix as a coloured grid,
// then every finding with its evidence, the fix plans, and the checks not
// evaluated. Every value goes through html/template escaping.
func writeHTMLReport(w io.Writer, r *Report) error {
	r = ForHumans(r)
	type groupView struct {
		Group
		Title    string
		Findings []checks.Finding
	}
	type sevGroup struct {
		Severity string
		Groups   []groupView
	}
	var sev []sevGroup
	for _, s := range []checks.Severity{checks.Critical, checks.Warning, checks.Info} {
		var gs []groupView
		for _, g := range r.Groups {
			if g.Severity == s {
				gs = append(gs, groupView{Group: g, Title: r.Rules[g.RuleID].Title, Findings: r.FindingsOf(g)})
			}
		}
		if len(gs) > 0 {
			sev = append(sev, sevGroup{string(s), gs})
		}
	}
	var collection []checks.Finding
	for _, f := range r.RootFindings() {
		if f.RuleID == checks.CollectionFailed {
			collection = append(collection, f)
		}
	}
	var ne []checks.Finding
	for _, f := range r.Findings {
		if f.Status == checks.StatusNotEvaluated {
			ne = append(ne, f)
		}
	}
	ids := map[string]string{}
	for i, f := range r.Findings {
		if f.Status == checks.StatusFail {
			ids[f.Key()] = fmt.Sprintf("f-%d", i+1)
		}
	}
	hostIDs := map[string]string{}
	for i, h := range r.Entries() {
		hostIDs[h.Host] = fmt.Sprintf("h-%d", i+1)
	}
	var topos []*Topology
	for i := range r.Topology {
		if r.Topology[i].NotCollected == "" {
			topos = append(topos, &r.Topology[i])
		}
	}
	funcs := template.FuncMap{
		"fid": func(f checks.Finding) string { return ids[f.Key()] },
		"cid": func(c checks.Cause) string { return ids[c.Key()] },
		"hid": func(h string) string { return hostIDs[h] },
		"hasTopo": func(h string) bool {
			t := r.TopologyOf(h)
			return t != nil && t.NotCollected == ""
		},
	}
	t, err := htmlTemplate.Clone()
	if err != nil {
		return err
	}
	return t.Funcs(funcs).Execute(w, map[string]any{
		"R": r, "Groups": sev, "Collection": collection, "NotEvaluated": ne, "VerdictClass": r.VerdictLevel(), "Plans": r.Plans,
		"Findings": r.Summary.RootCauses.Total(),
		"Matrix":   r.Paths.matrix(), "Topos": topos,
	})
}

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"upper":        func(s string) string { return strings.ToUpper(s) },
	"evidence":     evidenceHTML,
	"hostClass":    Host.level,
	"rdmaCell":     func(h Host) string { return cellCount(h.RDMADeviceCount()) },
	"vmCell":       func(h Host) string { return cellCount(h.PVRDMAVMCount()) },
	"notEvaluated": func(m string) string { return strings.TrimPrefix(m, "not evaluated: ") },
	"ruleTitle":    func(r *Report, id string) string { return r.Rules[id].Title },
	"consequences": allConsequences,
	"therefore":    therefore,
	"resolves":     ResolvesText,
	"ruleDocs":     func(r *Report, id string) []string { return r.Rules[id].Docs },
	"isURL":        func(s string) bool { return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") },
	"urlPart": func(s string) string {
		u, _, _ := strings.Cut(s, " ")
		return u
	},
	"fid":       func(checks.Finding) string { return "" },
	"cid":       func(checks.Cause) string { return "" },
	"hid":       func(string) string { return "" },
	"hasTopo":   func(string) bool { return false },
	"svg":       TopologySVG,
	"topoMarks": TopologyMarks,
	"entryLine": entryLine,
	"stackText": StackText,
	"headline":  Group.Headline,
	"causeLine": FailureCause.Line,
	"plural":    plural,
	"readiness": readinessHTML,
}).Parse(`{{define "consequences"}}
{{- range .}}
<div class="consequence" id="{{fid .}}"><span class="why">{{therefore .}}:</span> <span class="badge {{.Severity}}">{{.RuleID}}</span> <span class="subject">{{.Subject}}</span>
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
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:70rem;padding:1rem 2rem;color:#1d1d1f;background:#fff;overflow-wrap:break-word}
h1{font-size:1.4rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}h3{font-size:1rem}
.meta{color:#666;font-size:.9rem}
.verdict{font-size:1.2rem;font-weight:600;padding:.8rem 1rem;border-radius:6px;margin:1rem 0}
.verdict.critical{background:#fde8e8;color:#9b1c1c;border-left:6px solid #c81e1e}
.verdict.warning{background:#fdf6e3;color:#8a5300;border-left:6px solid #e3a008}
.verdict.ok{background:#e6f4ea;color:#1e6b37;border-left:6px solid #31a354}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:.92rem}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #eee;vertical-align:top}
th{background:#f6f6f6;white-space:nowrap}td.num{text-align:right}
.badge{display:inline-block;font-size:.75rem;font-weight:700;padding:.1rem .45rem;border-radius:3px;color:#fff;text-transform:uppercase}
.badge.critical{background:#c81e1e}.badge.warning{background:#c27803}.badge.info{background:#1c64f2}.badge.ok{background:#31a354}
tr.critical td:first-child{border-left:4px solid #c81e1e}tr.warning td:first-child{border-left:4px solid #e3a008}tr.ok td:first-child{border-left:4px solid #31a354}
ul.problems{padding-left:1.2rem}ul.problems li{margin:.3rem 0}
.finding{border:1px solid #e5e5e5;border-radius:6px;padding:.6rem 1rem;margin:.8rem 0}
.finding h3{font-size:1rem;margin:.2rem 0 .4rem}.subject{color:#444;font-weight:400}
.member{border-top:1px dashed #ddd;padding:.3rem 0}
.fix{background:#f3faf5;border-left:3px solid #31a354;padding:.4rem .7rem;margin:.5rem 0;white-space:pre-wrap}
details{margin:.4rem 0}summary{cursor:pointer;color:#555}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
pre{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;margin:.3rem 0}
.docs{font-size:.85rem;color:#555}
.consequence{border-left:3px solid #ccc;margin:.5rem 0 .5rem .5rem;padding:.2rem .8rem}
.consequence .why{font-weight:600;color:#555}
ol.plan li{margin:.35rem 0}.resolves{font-size:.85rem;color:#555}
svg.topo{display:block;max-width:56rem;height:auto;margin:.5rem 0;font-family:system-ui,sans-serif}
svg.topo text.col{font-size:12px;fill:#666;font-weight:600}
svg.topo .edge{fill:none;stroke:#999;stroke-width:1.5}
svg.topo rect{stroke-width:2}
svg.topo .box.ok rect,svg.topo .box.none rect{fill:#e6f4ea;stroke:#31a354}
svg.topo .box.none rect{fill:#f6f6f6;stroke:#bbb}
svg.topo .box.warning rect{fill:#fdf6e3;stroke:#c27803}
svg.topo .box.critical rect{fill:#fde8e8;stroke:#c81e1e}
svg.topo text.name{font-size:13px;font-weight:600;fill:#1d1d1f}svg.topo text.detail{font-size:11px;fill:#444}
svg.topo text.glyph{font-size:16px;font-weight:700}svg.topo .critical text.glyph{fill:#c81e1e}svg.topo .warning text.glyph{fill:#c27803}
ul.marks{font-size:.9rem;margin:.2rem 0 1rem}li.critical::marker{color:#c81e1e}li.warning::marker{color:#c27803}
table.matrix{width:auto;border-collapse:separate;border-spacing:2px}table.matrix td{text-align:center;font-family:ui-monospace,Menlo,Consolas,monospace;min-width:3.2rem;border:0;border-radius:3px}
table.readiness td.r-ok{color:#1e6b37}table.readiness td.r-fail{color:#9b1c1c;font-weight:600}table.readiness td.r-unknown,table.readiness td.r-na{color:#777}
td.jumbo{background:#b7e1c1}td.std{background:#c6dbf7}td.warning{background:#fbd38d}td.critical{background:#f8b4b4;color:#7a1010;font-weight:700}td.self,td.none{color:#aaa;background:#f6f6f6}
.legend span{display:inline-block;padding:.05rem .5rem;margin:.1rem .2rem;border-radius:3px;font-size:.85rem}
@media (max-width:600px){body{padding:.5rem .7rem}th,td{padding:.25rem .35rem}}
@media print{body{max-width:none;padding:0;font-size:10pt}details::details-content{content-visibility:visible;display:block}summary{display:none}
.finding,.consequence,svg.topo,table.matrix{break-inside:avoid}a{color:inherit;text-decoration:none}.scroll{overflow:visible}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
</style>
</head>
<body>
<h1>pvrdma-doctor report</h1>
<div class="meta">{{.R.Source}} · pvrdma-doctor {{.R.Tool.Version}} · {{.R.GeneratedAt.Format "2006-01-02 15:04:05 UTC"}} · schema {{.R.SchemaVersion}}</div>
<div class="verdict {{.VerdictClass}}" id="verdict">{{.R.Verdict}}</div>
<div class="scroll"><table>
<tr><th>critical</th><th>warning</th><th>info</th><th>findings</th><th>consequences</th><th>not evaluated</th><th>passed</th><th>suppressed</th></tr>
<tr><td class="num">{{.R.Summary.Problems.Critical}}</td><td class="num">{{.R.Summary.Problems.Warning}}</td><td class="num">{{.R.Summary.Problems.Info}}</td><td class="num">{{.Findings}}</td><td class="num">{{.R.Summary.Consequences}}</td><td class="num">{{.R.Summary.NotEvaluated}}</td><td class="num">{{.R.Summary.Passed}}</td><td class="num">{{.R.Summary.Suppressed}}</td></tr>
</table></div>
{{- if .Groups}}
<h2 id="problems">Problems</h2>
<ul class="problems">
{{- range .Groups}}{{range .Groups}}
<li><span class="badge {{.Severity}}">{{.Severity}}</span> <a href="#{{.ID}}">{{.RuleID}}</a> {{.Title}} — {{headline .Group}}{{if gt .Size 1}} ({{.Size}} findings){{end}}</li>
{{- end}}{{end}}
</ul>
{{- end}}
{{- if .R.CollectionFailures}}
<h2 id="not-collected">Not collected</h2>
<ul>
{{- range .R.CollectionFailures}}
<li>{{causeLine .}}</li>
{{- end}}
</ul>
{{- end}}
<h2 id="hosts">Hosts</h2>
<div class="scroll"><table>
<tr><th>host</th><th>verdict</th><th>ESXi</th><th>RDMA devices</th><th>PVRDMA VMs</th></tr>
{{- range .R.Hosts}}
<tr class="{{hostClass .}}"><td>{{if hasTopo .Host}}<a href="#{{hid .Host}}">{{.Host}}</a>{{else}}{{.Host}}{{end}}</td><td>{{entryLine .}}{{range .Stacks}}<br><small>stack: {{stackText .}}</small>{{end}}{{range .Notes}}<br><small>note: {{.}}</small>{{end}}</td><td>{{.Version}}</td><td class="num">{{rdmaCell .}}</td><td class="num">{{vmCell .}}</td></tr>
{{- end}}
</table></div>
{{readiness .R}}
{{- if .Topos}}
<h2 id="topology">Data path</h2>
<p class="meta">Each host's PVRDMA data path, as the rules read it: VM adapters → vmknic → distributed switch → uplinks → RDMA devices. Red ✗ breaks the path, amber ! degrades it, green is fine.</p>
{{- range .Topos}}
<h3 id="{{hid .Host}}">{{.Host}}{{if .PathMTU}} <span class="meta">· path MTU {{.PathMTU}}, RDMA MTU up to {{.RDMAMTU}}</span>{{end}}</h3>
{{svg .}}
{{- with topoMarks .}}
<ul class="marks">
{{- range .}}
<li class="{{.Level}}">{{.Text}}</li>
{{- end}}
</ul>
{{- end}}
{{- end}}
{{- end}}
{{- if and .R.Paths (not .Matrix)}}
<h2 id="paths">Paths</h2>
<p class="meta">{{len .R.Paths.Hosts}} hosts, {{len .R.Paths.Pairs}} measured pairs: too many for a matrix; fleet minimum path MTU {{.R.Paths.FleetMinMTU}}{{with .R.Paths.MinPair}}, {{.}}{{end}}. The pairs that are not ok:</p>
{{with .R.Paths.NotFabric}}<p class="meta">{{.}}.</p>{{end}}
<div class="scroll"><table>
<tr><th>from</th><th>to</th><th>status</th><th>path MTU</th><th>configured</th></tr>
{{- range .R.Paths.NotOK}}
<tr><td>{{.From}}</td><td>{{.To}} ({{.Target}})</td><td>{{.Status}}</td><td class="num">{{.PathMTU}}</td><td class="num">{{.ConfiguredMTU}}</td></tr>
{{- end}}
</table></div>
{{- end}}
{{- with .Matrix}}
<h2 id="paths">Path matrix</h2>
<p class="meta">Path MTU in bytes measured from the row's PVRDMA vmknic to the column's (don't-fragment vmkping; fleet minimum {{$.R.Paths.FleetMinMTU}}{{with $.R.Paths.MinPair}}, {{.}}{{end}}).</p>
{{with $.R.Paths.NotFabric}}<p class="meta">{{.}}.</p>{{end}}
<p class="legend"><span class="jumbo" style="background:#b7e1c1">9000</span><span style="background:#c6dbf7">less</span><span style="background:#f8b4b4">! blocked / -- unreachable</span><span style="background:#fbd38d">&lt; refused by the sender / ~ lossy</span><span style="background:#f6f6f6">. not probed</span></p>
<div class="scroll"><table class="matrix">
<tr><th>from \ to</th>{{range $.R.Paths.Hosts}}<th>{{.}}</th>{{end}}</tr>
{{- range .}}
<tr><th>{{.Host}}</th>{{range .Cells}}<td class="{{.Class}}"{{with .Title}} title="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{- end}}
</table></div>
{{- end}}
{{- if .R.Guests}}
<h2 id="guests">Guests</h2>
<div class="scroll"><table>
<tr><th>guest</th><th>verdict</th><th>kernel</th><th>adapter: host side &lt;-&gt; guest side</th></tr>
{{- range .R.Guests}}
<tr class="{{hostClass .}}"><td>{{.Host}}</td><td>{{entryLine .}}</td><td>{{.Version}}</td><td>{{range $i, $a := .Adapters}}{{if $i}}<br>{{end}}{{$a.Text}}{{else}}no PVRDMA device{{end}}</td></tr>
{{- end}}
</table></div>
{{- end}}
{{- $r := .R}}
{{- range .Groups}}
<h2><span class="badge {{.Severity}}">{{upper .Severity}}</span> {{plural (len .Groups) "problem" "problems"}}</h2>
{{- range .Groups}}
<div class="finding" id="{{.ID}}">
<h3><span class="badge {{.Severity}}">{{.RuleID}}</span> {{.Title}} <span class="subject">— {{headline .Group}}</span></h3>
<p>{{.Message}}</p>
{{- if and .Fix .SameFix}}
<div class="fix"><strong>Fix{{if gt .Size 1}} (each){{end}}:</strong> {{.Fix}}</div>
{{- end}}
{{- with ruleDocs $r .RuleID}}
<div class="docs">Docs:{{range .}} {{if isURL .}}<a href="{{urlPart .}}" rel="noreferrer">{{.}}</a>{{else}}{{.}}{{end}};{{end}}</div>
{{- end}}
{{- $one := eq .Size 1}}{{$same := .SameFix}}
{{- range .Findings}}
<div class="member" id="{{fid .}}">
{{- if not $one}}<strong>{{.Host}} — {{.Subject}}</strong>{{end}}
{{- template "evidence" .}}
{{- if and .Fix (not $same)}}
<div class="fix"><strong>Fix:</strong> {{.Fix}}</div>
{{- end}}
{{- template "consequences" (consequences $r .)}}
</div>
{{- end}}
</div>
{{- end}}
{{- end}}
{{- if .Collection}}
<h2>Not collected, by host</h2>
{{- range .Collection}}
<div class="finding" id="{{fid .}}">
<h3><span class="badge {{.Severity}}">{{.RuleID}}</span> {{.Host}} <span class="subject">— {{.Subject}}</span></h3>
<p>{{.Message}}</p>
{{- template "evidence" .}}
{{- if .Fix}}
<div class="fix"><strong>Fix:</strong> {{.Fix}}</div>
{{- end}}
</div>
{{- end}}
{{- end}}
{{- if .Plans}}
<h2 id="plans">Fix plan</h2>
<p class="meta">One plan per host, in order; each step names the findings it resolves.</p>
{{- range .Plans}}
<h3>{{.Host}}</h3>
<ol class="plan">
{{- range .Steps}}
<li>{{if .Optional}}<em>(optional)</em> {{end}}{{.Text}}{{if .Command}} Run: <code>{{.Command}}</code>{{end}}{{range .Warnings}} <strong>Note:</strong> {{.}}.{{end}}{{if .Resolves}}<div class="resolves">resolves:{{range $i, $c := .Resolves}}{{if $i}};{{end}} {{with cid $c}}<a href="#{{.}}">{{$c.RuleID}} {{$c.Subject}}</a>{{else}}{{$c.RuleID}} {{$c.Subject}}{{end}}{{end}}</div>{{end}}</li>
{{- end}}
</ol>
{{- end}}
{{- end}}
{{- if .NotEvaluated}}
<h2 id="not-evaluated">Not evaluated ({{len .NotEvaluated}})</h2>
<details><summary>Checks that could not run, and why</summary>
<div class="scroll"><table>
<tr><th>host</th><th>rule</th><th>subject</th><th>reason</th></tr>
{{- range .NotEvaluated}}
<tr><td>{{.Host}}</td><td>{{.RuleID}}</td><td>{{.Subject}}</td><td>{{notEvaluated .Message}}</td></tr>
{{- end}}
</table></div>
</details>
{{- end}}
{{- if .R.Suppressed}}
<h2>Suppressed ({{len .R.Suppressed}})</h2>
<div class="scroll"><table>
<tr><th>host</th><th>rule</th><th>subject</th><th>reason</th></tr>
{{- range .R.Suppressed}}
<tr><td>{{.Host}}</td><td>{{.RuleID}}</td><td>{{.Subject}}</td><td>{{.SuppressReason}}</td></tr>
{{- end}}
</table></div>
{{- else if .R.Summary.Suppressed}}
<p>{{.R.Summary.Suppressed}} suppressed finding(s) not shown (--show-suppressed lists them).</p>
{{- end}}
{{- range .R.Notes}}
<p class="meta">note: {{.}}</p>
{{- end}}
</body>
</html>
`))
