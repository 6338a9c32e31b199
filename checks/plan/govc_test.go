package plan

import (
	"strings"
	"testing"
)

// A govc command names the device, port group and guest ID the data
// gives; where it gives none, a placeholder a person fills in (and the
// step pauses), never a name made up from the .vmx (its ethernet1 is not
// govc's ethernet-1 when the VM has fewer cards before it).
func TestGovcValuesOrPlaceholders(t *testing.T) {
	for _, c := range []struct {
		v    Value
		want string
	}{
		{VMConnectAdapter{VM: "vm1", Adapter: "ethernet1", Device: "ethernet-0"}, "govc device.connect -vm vm1 ethernet-0"},
		{VMConnectAdapter{VM: "vm1", Adapter: "ethernet1"}, "govc device.connect -vm vm1 DEVICE_NAME"},
		{VMSetNetwork{VM: "vm1", Adapter: "ethernet1", Switch: "rdma-dvs", Device: "ethernet-1", Portgroup: "pvrdma pg"},
			"govc vm.network.change -vm vm1 -net 'pvrdma pg' ethernet-1"},
		{VMSetNetwork{VM: "vm1", Adapter: "ethernet1", Switch: "rdma-dvs"}, "govc vm.network.change -vm vm1 -net PORTGROUP DEVICE_NAME"},
		{VMReplaceAdapter{VM: "vm1", Adapter: "ethernet1", Device: "ethernet-1", Portgroup: "pvrdma-pg"},
			"govc device.remove -vm vm1 ethernet-1 && govc vm.network.add -vm vm1 -net pvrdma-pg -net.adapter vmxnet3"},
		{VMReplaceAdapter{VM: "vm1", Adapter: "ethernet1"},
			"govc device.remove -vm vm1 DEVICE_NAME && govc vm.network.add -vm vm1 -net PORTGROUP -net.adapter vmxnet3"},
		{VMSetGuestOS{VM: "vm1", Value: "otherLinux64Guest"}, "govc vm.change -vm vm1 -g otherLinux64Guest"},
		{VMSetGuestOS{VM: "vm1"}, "govc vm.change -vm vm1 -g GUEST_ID"},
		// A value a shell would read otherwise is quoted; one that
		// cannot be shown is a placeholder.
		{VMConnectAdapter{VM: "vm1", Device: "ethernet-0;reboot"}, "govc device.connect -vm vm1 'ethernet-0;reboot'"},
		{VMSetNetwork{VM: "vm1", Device: "ethernet-0", Portgroup: "pg\x1b[2J"}, "govc vm.network.change -vm vm1 -net PORTGROUP ethernet-0"},
	} {
		r := Render("esx01", c.v)
		if r.Command != c.want {
			t.Errorf("%T %+v: %q, want %q", c.v, c.v, r.Command, c.want)
		}
		if !r.Pause {
			t.Errorf("%q does not pause: a person runs it in vCenter", r.Command)
		}
		if strings.Contains(r.Command, "ethernet-N") {
			t.Errorf("%q: a made-up device name", r.Command)
		}
	}
}
