# byre: installed as /etc/profile.d/byre-env.sh, so login shells (byre shell,
# `bash -l`) see the same environment the launcher gave the agent.
# POSIX sh: /etc/profile may run under dash. It only sets env; it must not
# print, prompt, or fail the shell.

# /etc/profile resets PATH; put back the image's entries it dropped, in the
# image's order, ahead of the rest.
if [ -r "${BYRE_IMAGE_PATH_FILE:-/etc/byre/image-path}" ]; then
  byre_image_path=$(cat "${BYRE_IMAGE_PATH_FILE:-/etc/byre/image-path}")
  byre_missing=
  byre_old_ifs=$IFS
  IFS=:
  case $- in *f*) byre_noglob=1 ;; *) byre_noglob=; set -f ;; esac
  for byre_entry in $byre_image_path; do
    [ -n "$byre_entry" ] || continue
    case ":$PATH:$byre_missing:" in
      *":$byre_entry:"*) ;;
      *) byre_missing="${byre_missing:+$byre_missing:}$byre_entry" ;;
    esac
  done
  [ -n "$byre_noglob" ] || set +f
  IFS=$byre_old_ifs
  if [ -n "$byre_missing" ]; then
    PATH="$byre_missing${PATH:+:$PATH}"
    export PATH
  fi
  unset byre_image_path byre_missing byre_old_ifs byre_noglob byre_entry
fi

# Skills' env hooks, the same ones the launcher sources before exec.
for byre_hook in "${BYRE_ENVD_DIR:-/etc/byre/env.d}"/*.sh; do
  [ -r "$byre_hook" ] && . "$byre_hook"
done
unset byre_hook

# Credentials byre develop delivered to this session's tmpfs (adr/0012),
# exported as the launcher exported them to the agent. Nothing happens in a
# box that took none.
byre_cred_dir="${BYRE_CREDENTIAL_DIR:-/run/byre/credentials}"
if [ -f "$byre_cred_dir/ready" ]; then
  for byre_cred in "$byre_cred_dir"/env/* "$byre_cred_dir"/file/*; do
    [ -f "$byre_cred" ] && [ ! -L "$byre_cred" ] || continue
    byre_key=${byre_cred##*/}
    case $byre_key in '' | [0-9]* | *[!A-Za-z0-9_]* | BYRE_*) continue ;; esac
    case $byre_cred in
      "$byre_cred_dir"/env/*)
        # The x keeps trailing newlines that $(…) would strip.
        byre_value=$(cat "$byre_cred" && printf x) || continue
        export "$byre_key=${byre_value%x}"
        ;;
      *) export "$byre_key=$byre_cred" ;;
    esac
  done
fi
unset byre_cred_dir byre_cred byre_key byre_value
