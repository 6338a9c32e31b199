package collect

import (
	"regexp"
	"strconv"
	"strings"
)

// stage1Files maps the file name of every stage-1 command back to its line.
var stage1Files = func() map[string]string {
	m := make(map[string]string, len(stage1))
	for _, c := range stage1 {
		m[FileName(c.Line)] = c.Line
	}
	return m
}()

// Patterns of the stage-2/3 file names. FileName is not reversible in
// general ('/' and ' ' both become '_'), but it is for the catalogue: every
// argument is validated to a shape that survives FileName unchanged.
var (
	fileProps  = regexp.MustCompile(`^vsish_-e_cat_vmkModules_vrdma_pvrdmaDevices_([0-9]{1,12})_([0-9]{1,12})_properties$`)
	fileStats  = regexp.MustCompile(`^esxcli_rdma_device_stats_get_-d_(vmrdma[0-9]{1,4})$`)
	fileNICGet = regexp.MustCompile(`^esxcli_network_nic_get_-n_(vmnic[0-9]{1,4})$`)
	fileDCB    = regexp.MustCompile(`^esxcli_network_nic_dcb_status_get_-n_(vmnic[0-9]{1,4})$`)
	filePing   = regexp.MustCompile(`^vmkping_-I_(vmk[0-9]{1,4})(?:_-S_([A-Za-z][A-Za-z0-9_-]{0,63}))?_-c_3_-d_-s_([0-9]{1,4})_([0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3})$`)
)

// CommandForFile returns the catalogue command line whose output is stored
// under name (a base name as made by FileName, with or without ".txt"), so
// that saved outputs, scenario folders and bundles can be read back. The
// line is validated by the same constructors as live commands; ok is false
// for names that are not a catalogue command.
func CommandForFile(name string) (line string, ok bool) {
	base := strings.TrimSuffix(name, ".txt")
	if l, ok := stage1Files[base+".txt"]; ok {
		return l, true
	}
	var c Command
	var err error
	switch {
	case fileProps.MatchString(base):
		m := fileProps.FindStringSubmatch(base)
		c, err = PVRDMAProperties(m[1], m[2])
	case fileStats.MatchString(base):
		c, err = RDMAStats(fileStats.FindStringSubmatch(base)[1])
	case fileNICGet.MatchString(base):
		c, err = NICGet(fileNICGet.FindStringSubmatch(base)[1])
	case fileDCB.MatchString(base):
		c, err = DCBStatus(fileDCB.FindStringSubmatch(base)[1])
	case filePing.MatchString(base):
		m := filePing.FindStringSubmatch(base)
		payload, perr := strconv.Atoi(m[3])
		if perr != nil {
			return "", false
		}
		c, err = Vmkping(m[1], m[2], m[4], payload)
	default:
		return "", false
	}
	if err != nil || CheckAllowed(c.Line) != nil || FileName(c.Line) != base+".txt" {
		return "", false
	}
	return c.Line, true
}
