#!/bin/sh
# meson install step: installs the sample configuration as
# sysconfdir/ibsmd/ibsmd.yaml unless a file is already there, so a
# re-install never overwrites an operator's configuration (Debian's dpkg
# protects it as a conffile on its own).
#   install_config.sh SOURCE_YAML SYSCONFDIR
set -eu
src=$1
dir="${DESTDIR:-}$2/ibsmd"
mkdir -p "$dir"
if [ -e "$dir/ibsmd.yaml" ]; then
    echo "keeping the existing $dir/ibsmd.yaml"
else
    install -m 0644 "$src" "$dir/ibsmd.yaml"
    echo "installed $dir/ibsmd.yaml"
fi
