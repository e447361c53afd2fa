#!/bin/sh
# Print a field of VERSION: get-version.sh FILE --release | --so-version
file=$1
case "$file" in /*) ;; *) file="$(pwd)/$file" ;; esac
. "$file"
case "$2" in
    --release) printf '%s' "$major.$minor.$micro" ;;
    --so-version) printf '%s' "$libnumafit_so_version" ;;
    --major) printf '%s' "$major" ;;
    --minor) printf '%s' "$minor" ;;
    --micro) printf '%s' "$micro" ;;
esac
