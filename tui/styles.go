package tui

import (
	"charm.land/lipgloss/v2"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// The colours and weights of the UI, in one place.

var (
	stHeader   = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("15")).Background(lipgloss.Color("24"))
	stDim      = lipgloss.NewStyle().Foreground(lipgloss.Color("245"))
	stBold     = lipgloss.NewStyle().Bold(true)
	stLabel    = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("39"))
	stSelected = lipgloss.NewStyle().Bold(true).Reverse(true)
	stCrit     = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("196"))
	stWarn     = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("214"))
	stInfo     = lipgloss.NewStyle().Foreground(lipgloss.Color("75"))
	stOK       = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("42"))
	stHit      = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("16")).Background(lipgloss.Color("214"))
)

func sevStyle(s checks.Severity) lipgloss.Style {
	switch s {
	case checks.Critical:
		return stCrit
	case checks.Warning:
		return stWarn
	}
	return stInfo
}

func verdictStyle(r *report.Report) lipgloss.Style {
	switch r.VerdictLevel() {
	case report.LevelCritical:
		return stCrit
	case report.LevelWarning:
		return stWarn
	}
	return stOK
}

func hostVerdictStyle(h *report.Host) lipgloss.Style {
	switch {
	case h.Critical > 0:
		return stCrit
	case h.Warning > 0 || h.Status != hostio.StatusCollected:
		return stWarn
	case h.NotEvaluated > 0:
		return lipgloss.NewStyle()
	}
	return stOK
}
