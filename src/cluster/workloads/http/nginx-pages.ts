// The bodies nginx serves by default: the stock index.html of the nginx image (615 bytes) and the
// built-in error pages (ngx_http_special_response: CRLF lines, the version in the tail).

export const NGINX_VERSION = "1.27.3";

export const NGINX_WELCOME_PAGE = [
  "<!DOCTYPE html>",
  "<html>",
  "<head>",
  "<title>Welcome to nginx!</title>",
  "<style>",
  "html { color-scheme: light dark; }",
  "body { width: 35em; margin: 0 auto;",
  "font-family: Tahoma, Verdana, Arial, sans-serif; }",
  "</style>",
  "</head>",
  "<body>",
  "<h1>Welcome to nginx!</h1>",
  "<p>If you see this page, the nginx web server is successfully installed and",
  "working. Further configuration is required.</p>",
  "",
  "<p>For online documentation and support please refer to",
  '<a href="http://nginx.org/">nginx.org</a>.<br/>',
  "Commercial support is available at",
  '<a href="http://nginx.com/">nginx.com</a>.</p>',
  "",
  "<p><em>Thank you for using nginx.</em></p>",
  "</body>",
  "</html>",
  "",
].join("\n");

/** An nginx error page ("404 Not Found", "405 Not Allowed", "400 Bad Request"). */
export function nginxErrorPage(status: string, version = NGINX_VERSION): string {
  return `<html>\r\n<head><title>${status}</title></head>\r\n<body>\r\n<center><h1>${status}</h1></center>\r\n<hr><center>nginx/${version}</center>\r\n</body>\r\n</html>\r\n`;
}
