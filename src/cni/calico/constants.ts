// Calico's fixed VXLAN parameters (felix: VXLANVNI 4096, VXLANPort 4789).
export const CALICO_VXLAN_VNI = 4096;
export const CALICO_VXLAN_PORT = 4789;
