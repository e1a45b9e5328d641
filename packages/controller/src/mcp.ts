/**
 * `@pincer/controller/mcp`: an MCP server (the SDK's McpServer) that serves one machine's actions, a screenshot tool and
 * a screenshot resource and template (the MCP SDK loads with this entry).
 */
export { createMcpServer, defaultMcpActions, SCREENSHOT_RESOURCE_URI, SCREENSHOT_TEMPLATE } from "./mcp/server.js";
export type { McpServerOptions } from "./mcp/server.js";
