// Command pvrdma-doctor diagnoses VMware PVRDMA setups. See README.md.
package main

import (
	"os"

	"github.com/pvrdma-doctor/pvrdma-doctor/cmd/pvrdma-doctor/internal/cli"
)

func main() { os.Exit(cli.Main()) }
