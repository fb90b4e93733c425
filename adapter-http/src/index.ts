// Public entry of @inkprep/http: the CLI runner (the server and store are exported as they land).
export { main as runCli } from './cli/main.js';
