export { startServer, serverLayer, type ServerOptions, type RunningServer } from "./server.js"
export { Settings, type HttpSettings } from "./settings.js"
export { ConveneApi, UserApiDoc, ServerApiDoc } from "./api.js"
export { settingsFromEnv } from "./config.js"
