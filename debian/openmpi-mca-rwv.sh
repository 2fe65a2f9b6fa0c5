# SPDX-License-Identifier: BSD-3-Clause (see /usr/share/doc/openmpi-mca-rwv-common/copyright)
# Installed by openmpi-mca-rwv-common (ompi-rwv).  Debian's PMIx ships a
# parameter file (pmix-mca-params.conf) that sets mca_base_component_path
# to PMIx's plugin directory; Open MPI 5.0's mpirun hands that setting to
# every rank as OMPI_MCA_mca_base_component_path, which hides every
# component installed in Open MPI's own directory.  While that line is
# there, and the user has set neither name, restate Open MPI's default
# under the full name, which outranks the short one.
if [ -z "${OMPI_MCA_opal_mca_base_component_path+set}${OMPI_MCA_mca_base_component_path+set}" ] &&
   grep -qs '^[[:space:]]*mca_base_component_path[[:space:]]*=' /usr/lib/*/pmix*/share/pmix-mca-params.conf; then
    export OMPI_MCA_opal_mca_base_component_path=SYS_DEFAULT
fi
