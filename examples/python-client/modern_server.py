"""A small MCP server of the MCP Python SDK (2.x), which speaks MCP 2026-07-28.

drive.py starts it behind the guard (server id "modern") to check a
2026-07-28 session: the client probes server/discover and sends no
initialize, every request names its version in _meta, and every result
must have resultType.
"""

from mcp.server.mcpserver import MCPServer

app = MCPServer("modern")


@app.tool()
def echo(message: str) -> str:
    """Echo the message."""
    return "Echo: " + message


@app.tool()
def get_env() -> str:
    """A tool the rules block."""
    return "HOME=/root"


if __name__ == "__main__":
    app.run()
