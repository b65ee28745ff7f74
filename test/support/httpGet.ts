// A GET for end-to-end tests: status, content type, and the body parsed as JSON when it is JSON.

export interface Got {
  status: number;
  contentType: string;
  body: unknown;
}

export async function get(base: string, path: string): Promise<Got> {
  const res = await fetch(base + path);
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body };
}
