package report

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
)

// SARIF 2.1.0 (OASIS) subset written by WriteSARIF.
const (
	SARIFVersion = "2.1.0"
	SARIFSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

type (
	SARIFLog struct {
		Version string     `json:"version"`
		Schema  string     `json:"$schema"`
		Runs    []SARIFRun `json:"runs"`
	}
	SARIFRun struct {
		Tool        SARIFTool         `json:"tool"`
		Invocations []SARIFInvocation `json:"invocations,omitempty"`
		Results     []SARIFResult     `json:"results"`
		// Properties carry the verdict and the summary, the same words
		// and numbers as every other format.
		Properties map[string]any `json:"properties,omitempty"`
	}
	SARIFTool struct {
		Driver SARIFDriver `json:"driver"`
	}
	SARIFDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri,omitempty"`
		Rules          []SARIFRule `json:"rules"`
	}
	SARIFRule struct {
		ID                   string             `json:"id"`
		Name                 string             `json:"name"`
		ShortDescription     SARIFText          `json:"shortDescription"`
		FullDescription      SARIFText          `json:"fullDescription"`
		Help                 SARIFMessage       `json:"help"`
		HelpURI              string             `json:"helpUri,omitempty"`
		DefaultConfiguration SARIFConfiguration `json:"defaultConfiguration"`
		Properties           map[string]any     `json:"properties,omitempty"`
	}
	SARIFText struct {
		Text string `json:"text"`
	}
	SARIFMessage struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	SARIFConfiguration struct {
		Level string `json:"level"`
	}
	SARIFInvocation struct {
		ExecutionSuccessful        bool                `json:"executionSuccessful"`
		ToolExecutionNotifications []SARIFNotification `json:"toolExecutionNotifications,omitempty"`
	}
	SARIFNotification struct {
		Level      string              `json:"level"`
		Message    SARIFText           `json:"message"`
		Descriptor *SARIFDescriptorRef `json:"associatedRule,omitempty"`
		Locations  []SARIFLocation     `json:"locations,omitempty"`
	}
	SARIFDescriptorRef struct {
		ID    string `json:"id"`
		Index int    `json:"index"`
	}
	SARIFResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             SARIFText         `json:"message"`
		Locations           []SARIFLocation   `json:"locations"`
		PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
		Properties          map[string]any    `json:"properties,omitempty"`
	}
	SARIFLocation struct {
		PhysicalLocation *SARIFPhysicalLocation `json:"physicalLocation,omitempty"`
		LogicalLocations []SARIFLogicalLocation `json:"logicalLocations,omitempty"`
	}
	SARIFPhysicalLocation struct {
		ArtifactLocation SARIFArtifactLocation `json:"artifactLocation"`
		Region           *SARIFRegion          `json:"region,omitempty"`
	}
	SARIFArtifactLocation struct {
		URI string `json:"uri"`
	}
	SARIFRegion struct {
		StartLine int        `json:"startLine"`
		Snippet   *SARIFText `json:"snippet,omitempty"`
	}
	SARIFLogicalLocation struct {
		Name               string `json:"name"`
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind,omitempty"`
	}
)

// sarifLevel maps a severity to a SARIF level.
func sarifLevel(s checks.Severity) string {
	switch s {
	case checks.Critical:
		return "error"
	case checks.Warning:
		return "warning"
	}
	return "note"
}

// EvidenceURI is the artifact a piece of evidence points at: the capture
// file of its command, under a folder per host (the layout of saved outputs
// and bundles): "esx01/esxcli_rdma_device_list.txt".
func EvidenceURI(host, command string) string {
	if command == "" {
		return host
	}
	return host + "/" + catalog.FileName(command)
}

// writeSARIFReport writes the report as SARIF 2.1.0: the rule catalogue as
// tool.driver.rules with help text, one result per finding (level from the
// severity), each located at the command capture and line of its evidence.
// Checks not evaluated become tool execution notifications.
func writeSARIFReport(w io.Writer, r *Report) error {
	rules := checks.Rules()
	index := map[string]int{}
	driver := SARIFDriver{Name: r.Tool.Name, Version: r.Tool.Version, InformationURI: "https://github.com/pvrdma-doctor/pvrdma-doctor"}
	if driver.Name == "" {
		driver.Name = "pvrdma-doctor"
	}
	for i, rule := range rules {
		index[rule.ID] = i
		help := rule.Why + "\n\nFix: " + rule.Fix
		helpMD := rule.Why + "\n\n**Fix:** " + rule.Fix
		if len(rule.Docs) > 0 {
			help += "\n\nDocs: " + strings.Join(rule.Docs, "; ")
			helpMD += "\n\nDocs:\n- " + strings.Join(rule.Docs, "\n- ")
		}
		sr := SARIFRule{ID: rule.ID, Name: sarifName(rule.ID), ShortDescription: SARIFText{rule.Title}, FullDescription: SARIFText{rule.Why},
			Help: SARIFMessage{Text: help, Markdown: helpMD}, DefaultConfiguration: SARIFConfiguration{sarifLevel(rule.Severity)},
			Properties: map[string]any{"severity": string(rule.Severity), "applies": rule.Applies}}
		for _, d := range rule.Docs {
			if u, _, _ := strings.Cut(d, " "); strings.HasPrefix(u, "https://") {
				sr.HelpURI = u
				break
			}
		}
		driver.Rules = append(driver.Rules, sr)
	}
	run := SARIFRun{Tool: SARIFTool{Driver: driver}, Results: []SARIFResult{}}
	inv := SARIFInvocation{ExecutionSuccessful: !r.Incomplete()}
	// Host notes (e.g. a host key not verified) are about how the host was
	// reached: notifications located at the host.
	for _, h := range r.Hosts {
		for _, n := range h.Notes {
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, SARIFNotification{Level: "note",
				Message:   SARIFText{h.Host + ": " + n},
				Locations: []SARIFLocation{{LogicalLocations: []SARIFLogicalLocation{{Name: h.Host, FullyQualifiedName: h.Host, Kind: "resource"}}}}})
		}
	}
	// Root causes first, each followed by its consequences.
	var ordered []checks.Finding
	var walk func(f checks.Finding)
	walk = func(f checks.Finding) {
		ordered = append(ordered, f)
		for _, c := range r.ConsequencesOf(f) {
			walk(c)
		}
	}
	for _, f := range r.RootFindings() {
		walk(f)
	}
	for _, f := range r.Findings {
		if f.Status == checks.StatusNotEvaluated {
			ordered = append(ordered, f)
		}
	}
	for _, f := range ordered {
		if f.Status == checks.StatusNotEvaluated {
			n := SARIFNotification{Level: "warning", Message: SARIFText{f.Host + ": " + f.RuleID + " (" + f.Subject + ") " + f.Message},
				Locations: []SARIFLocation{{LogicalLocations: logical(f)}}}
			if i, ok := index[f.RuleID]; ok {
				n.Descriptor = &SARIFDescriptorRef{ID: f.RuleID, Index: i}
			}
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
			continue
		}
		run.Results = append(run.Results, sarifResult(f, index))
	}
	for _, f := range r.Suppressed {
		res := sarifResult(f, index)
		res.Properties["suppressed"] = true
		res.Properties["suppress_reason"] = f.SuppressReason
		run.Results = append(run.Results, res)
	}
	run.Invocations = []SARIFInvocation{inv}
	run.Properties = map[string]any{"verdict": r.Verdict, "summary": r.Summary}
	doc := SARIFLog{Version: SARIFVersion, Schema: SARIFSchema, Runs: []SARIFRun{run}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func sarifResult(f checks.Finding, index map[string]int) SARIFResult {
	res := SARIFResult{RuleID: f.RuleID, RuleIndex: index[f.RuleID], Level: sarifLevel(f.Severity), Message: SARIFText{f.Message},
		PartialFingerprints: map[string]string{"pvrdmaDoctorKey/v1": f.Key()},
		Properties:          map[string]any{"host": f.Host, "subject": f.Subject, "severity": string(f.Severity)}}
	if f.Fix != "" {
		res.Properties["fix"] = f.Fix
	}
	res.Properties["root_cause"] = f.CausedBy == nil
	if f.CausedBy != nil {
		res.Properties["caused_by"] = f.CausedBy
	}
	for _, e := range f.Evidence {
		pl := &SARIFPhysicalLocation{ArtifactLocation: SARIFArtifactLocation{URI: EvidenceURI(e.Host, e.Command)}}
		if e.Line > 0 {
			pl.Region = &SARIFRegion{StartLine: e.Line, Snippet: &SARIFText{e.Text}}
		}
		res.Locations = append(res.Locations, SARIFLocation{PhysicalLocation: pl, LogicalLocations: logical(f)})
	}
	if len(res.Locations) == 0 {
		res.Locations = []SARIFLocation{{PhysicalLocation: &SARIFPhysicalLocation{ArtifactLocation: SARIFArtifactLocation{URI: f.Host}},
			LogicalLocations: logical(f)}}
	}
	return res
}

func logical(f checks.Finding) []SARIFLogicalLocation {
	return []SARIFLogicalLocation{{Name: f.Subject, FullyQualifiedName: f.Host + "/" + f.Subject, Kind: "object"}}
}

// sarifName turns NO_RDMA_DEVICE into NoRdmaDevice (SARIF rule names are
// PascalCase identifiers).
func sarifName(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(strings.ToLower(id), "_") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}
