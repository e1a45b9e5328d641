import { echo } from "./echo.js";
import { AlreadyExistsError, FailedPreconditionError, InvalidArgumentError, NotFoundError, PermissionDeniedError, ResourceExhaustedError } from "./errors.js";

/**
 * Turns a Node fs error into the typed error for its meaning, naming the path (cut to its first
 * bytes when long: messages never repeat request text whole). An error with no errno code is
 * returned as it is (an INTERNAL on the wire).
 */
export function fsError(err: unknown, path: string): Error {
  const code = (err as NodeJS.ErrnoException)?.code;
  const p = echo(path);
  const options = { cause: err };
  switch (code) {
    case "ENOENT":
      return new NotFoundError(`${p}: no such file or directory`, options);
    case "ENOTDIR":
      return new NotFoundError(`${p}: a parent of it is not a directory`, options);
    case "EEXIST":
      return new AlreadyExistsError(`${p}: already exists; pass overwrite to replace it`, options);
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new PermissionDeniedError(`${p}: permission denied`, options);
    case "EISDIR":
      return new InvalidArgumentError(`${p}: is a directory`, options);
    case "ENOTEMPTY":
      return new FailedPreconditionError(`${p}: directory not empty; pass recursive to remove it with its contents`, options);
    case "ENOSPC":
    case "EDQUOT":
      return new ResourceExhaustedError(`${p}: no space left on the device`, options);
    case "ELOOP":
      return new FailedPreconditionError(`${p}: a symbolic link is in the way (too many levels, or one replaced a directory during the call)`, options);
    case "ENAMETOOLONG":
      return new InvalidArgumentError(`${p}: name too long (Linux allows 255 bytes per name and 4095 per path)`, options);
    case "EINVAL":
      return new InvalidArgumentError(`${p}: the operation is not valid for this path (e.g. moving a directory into itself)`, options);
    case "EXDEV":
      return new FailedPreconditionError(`${p}: source and destination are on different file systems; download and upload the file instead`, options);
    case "EBUSY":
    case "ETXTBSY":
      return new FailedPreconditionError(`${p}: in use (a mount point, or a program running from it)`, options);
    case "EMFILE":
    case "ENFILE":
      return new ResourceExhaustedError(`${p}: the daemon has no file descriptor left; retry when fewer calls run`, options);
    default:
      return err instanceof Error ? err : new Error(String(err));
  }
}
