from ma2h import Client
client = Client.from_env()  # MA2H_URL, MA2H_API_KEY, MA2H_AGENT_ID
handle = client.ask.confirm("Deploy v2 to production?", expires_in=3600, default_on_expire="deny")
answer = handle.wait(timeout=3600)
print(answer.resolution, answer.value, "(a person)" if answer.by_human else "(not a person)")
