# Devices for the mrpsim QEMU build (configure --with-devices-x86_64=mrpsim):
# the i440fx PC (with its ISA serial port and fw_cfg for -kernel/-initrd),
# isa-debug-exit for guest-chosen exit codes, the HPET (a clock source the
# guest can calibrate its TSC against under TCG), and the mrpsim switch.

CONFIG_I440FX=y
CONFIG_ISA_DEBUG=y
CONFIG_HPET=y
CONFIG_MRPSIM=y
