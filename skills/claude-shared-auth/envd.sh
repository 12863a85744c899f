# env.d hook: export the shared Claude token, when one was saved. Exports only.
if [ -r /home/dev/.byre-identity/claude/token ]; then
  CLAUDE_CODE_OAUTH_TOKEN=$(cat /home/dev/.byre-identity/claude/token)
  export CLAUDE_CODE_OAUTH_TOKEN
fi
