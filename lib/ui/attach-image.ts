/**
 * `@pic.png` in a prompt: an image file (.png .jpg .jpeg .gif .webp) is attached as an image part
 * of the user message, not as text, when the model takes images (lib/providers/windows.ts
 * `vision`). The type comes from the file's first bytes (not its name); files over
 * IMAGE_MAX_BYTES are refused. Every refusal is one line, thrown as an Error for the report.
 */
import type { ImageMediaType } from "../messages.ts";
import { openInWorkspace } from "../tools/jail.ts";

export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;

export interface AttachedImage {
  mediaType: ImageMediaType;
  /** Base64 of the file's bytes. */
  data: string;
}

/** True for a name an image attachment is tried for. */
export function isImagePath(path: string): boolean {
  return /\.(png|jpe?g|gif|webp)$/i.test(path);
}

/**
 * Reads the image `path` names. `refuseFor` is undefined when the model takes images, else the
 * model's name (for the refusal). Throws one line when the image cannot be attached.
 */
export async function readImageAttachment(root: string, path: string, refuseFor: string | undefined): Promise<AttachedImage> {
  if (refuseFor !== undefined) throw new Error(`the model ${refuseFor} does not take images`);
  // Through the jail's checked open: what is judged is what is read, and a named pipe never blocks.
  const { handle } = await openInWorkspace(root, path, "read");
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error("not a regular file");
    if (info.size > IMAGE_MAX_BYTES)
      throw new Error(`${_megabytes(info.size)} MB is over the ${IMAGE_MAX_BYTES / 1024 / 1024} MB image limit; scale it down first`);
    const bytes = await handle.readFile();
    const mediaType = detectImageType(bytes);
    if (!mediaType) throw new Error("not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise)");
    return { mediaType, data: bytes.toString("base64") };
  } finally {
    await handle.close();
  }
}

/** The image type the first bytes announce, or undefined. */
export function detectImageType(bytes: Uint8Array): ImageMediaType | undefined {
  const starts = (signature: number[], at = 0) => signature.every((byte, index) => bytes[at + index] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (starts([0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return "image/gif";
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return undefined;
}

/** `attached @pic.png (…)`'s parenthesis: type and size. */
export function describeImage(image: AttachedImage): string {
  const bytes = Math.floor((image.data.length * 3) / 4) - (image.data.endsWith("==") ? 2 : image.data.endsWith("=") ? 1 : 0);
  const kind = image.mediaType.slice("image/".length).toUpperCase();
  return `image, ${kind}, ${bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB`}`;
}

function _megabytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
