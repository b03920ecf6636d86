/**
 * preconnectProvider (`preconnectProvider` in lib/providers/_http.ts): one preconnect per origin, to the origin of an
 * http(s) base URL only, none behind a proxy variable, none where the runtime has no preconnect.
 */
import { expect, test } from "bun:test";
import { preconnectProvider } from "../../lib/providers/_http.ts";

function _calls(baseURL: string, env: NodeJS.ProcessEnv = {}): string[] {
  const seen: string[] = [];
  preconnectProvider(baseURL, env, (url) => seen.push(url));
  return seen;
}

test("the origin of an http(s) base URL is preconnected once, whatever the spelling of its path", () => {
  expect(_calls("https://api.one.example/v1")).toEqual(["https://api.one.example"]);
  // The same origin again, spelled otherwise: already warm.
  for (const spelling of ["https://api.one.example/v1/", "HTTPS://API.ONE.EXAMPLE/v1", "https://api.one.example:443/other", "https://api.one.example"])
    expect(_calls(spelling)).toEqual([]);
  expect(_calls("http://127.0.0.1:9/v1")).toEqual(["http://127.0.0.1:9"]);
  expect(_calls("http://127.0.0.1:10/v1")).toEqual(["http://127.0.0.1:10"]);
});

test("nothing for a URL that is not http(s) or not a URL", () => {
  for (const url of ["ftp://files.example/v1", "file:///tmp/x", "not a url", "", "//api.two.example/v1", "api.two.example/v1"]) expect(_calls(url)).toEqual([]);
});

test("nothing while a proxy variable is set, in either case", () => {
  for (const name of ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"])
    expect(_calls(`https://api.${name.toLowerCase().replace("_", "-")}.example/v1`, { [name]: "http://proxy.example:3128" })).toEqual([]);
  // An empty variable is no proxy.
  expect(_calls("https://api.three.example/v1", { HTTPS_PROXY: "" })).toEqual(["https://api.three.example"]);
});

test("nothing where the runtime has no preconnect, and a throwing one is not an error", () => {
  expect(preconnectProvider("https://api.four.example/v1", {}, undefined)).toBe(false);
  expect(
    preconnectProvider("https://api.five.example/v1", {}, () => {
      throw new Error("refused");
    }),
  ).toBe(false);
});
