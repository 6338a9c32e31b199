package hostio

// Transports as captures and host results name them.
const (
	TransportSSH        = "ssh"
	TransportVCenter    = "vcenter"
	TransportVSphereAPI = "vsphere-api"
)
