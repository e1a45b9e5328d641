/**
 * What goes into Pincer's machine images: Debian packages per profile, and the packages every image
 * carries so that one root filesystem serves both outputs (a container image, and a qcow2 disk that
 * boots with its own kernel and systemd).
 */

/** The profiles `pincer image build --profile` knows. */
export const PROFILE_NAMES = ["minimal", "desktop", "office"] as const;
/** One of {@link PROFILE_NAMES}. */
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** A profile: its packages and the session started on the display before the daemon. */
export interface Profile {
  name: ProfileName;
  description: string;
  /** Debian packages, beyond those of every image ({@link BASE_PACKAGES}, {@link VM_PACKAGES}). */
  packages: readonly string[];
  /** A /bin/sh line run as `user` on the display once the X server is up (a window manager, a panel), or none. */
  session?: string;
  /** Files written into /home/user (paths relative to it), owned by `user`: application settings. */
  userFiles?: Readonly<Record<string, string>>;
  /** Symbolic links made in /home/user: path relative to it → the link's target (relative to the link's folder). */
  userLinks?: Readonly<Record<string, string>>;
}

/** Office documents open in LibreOffice (OSWorld's `open` step runs xdg-open), not in the browser. */
const OFFICE_MIME_DEFAULTS = `[Default Applications]
${Object.entries({
  calc: ["vnd.openxmlformats-officedocument.spreadsheetml.sheet", "vnd.ms-excel", "vnd.oasis.opendocument.spreadsheet", "csv"],
  writer: ["vnd.openxmlformats-officedocument.wordprocessingml.document", "msword", "vnd.oasis.opendocument.text", "rtf"],
  impress: ["vnd.openxmlformats-officedocument.presentationml.presentation", "vnd.ms-powerpoint", "vnd.oasis.opendocument.presentation"],
})
  .flatMap(([app, types]) => types.map((t) => `${t === "csv" ? "text" : "application"}/${t}=libreoffice-${app}.desktop`))
  .join("\n")}
`;

/**
 * LibreOffice's settings on OSWorld's machines: saving in a non-ODF format (ctrl+s on an .xlsx, as
 * OSWorld's postconfig does) asks nothing, and no tip of the day or first-start wizard covers the window.
 */
const LIBREOFFICE_SETTINGS = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="WarnAlienFormat" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Setup/Office"><prop oor:name="ooSetupInstCompleted" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Setup/Office"><prop oor:name="FirstStartWizardCompleted" oor:op="fuse"><value>true</value></prop></item>
</oor:items>
`;

/** In every image: the user account tools, certificates, and what the daemon's commands rely on. */
export const BASE_PACKAGES = ["passwd", "ca-certificates", "procps", "psmisc", "less", "sudo"] as const;

/**
 * In every image too, used only when it boots as a virtual machine: a kernel for virtual hardware,
 * systemd as init, udev, the guest agent that sets the clock after a snapshot is restored. The
 * container output leaves /boot and the kernel modules out.
 */
export const VM_PACKAGES = ["linux-image-cloud-amd64", "systemd-sysv", "udev", "kmod", "iproute2", "qemu-guest-agent"] as const;

/** The X server and the small X programs Pincer's examples and tests use. */
const MINIMAL = [
  "xvfb",
  "xauth",
  "x11-xserver-utils",
  "x11-utils",
  "x11-apps",
  "xterm",
  "xdotool",
  "xclip",
  "fonts-dejavu-core",
  "imagemagick",
  "python3",
] as const;

/** A desktop a person would recognise: a window manager with titles, focus and decorations, a panel and a file manager. */
const DESKTOP = [
  ...MINIMAL,
  "openbox",
  "tint2",
  "pcmanfm",
  "lxterminal",
  "dbus-x11",
  "at-spi2-core",
  "adwaita-icon-theme",
  "fonts-dejavu",
  "curl",
  "file",
] as const;

/** The applications OSWorld's Linux tasks use that Debian packages. */
const OFFICE = [
  ...DESKTOP,
  "libreoffice-calc",
  "libreoffice-writer",
  "libreoffice-impress",
  "libreoffice-gtk3",
  "chromium",
  "gimp",
  "vlc",
  "thunderbird",
  "python3-openpyxl",
  "python3-docx",
  // OSWorld's tasks run `python`, and forward Chrome's debugging port with socat.
  "python-is-python3",
  "socat",
  // Its os tasks set and read GNOME's settings with gsettings (kept by dconf; GNOME Shell's schemas
  // name the dock's favourite apps), and compare numbers with bc.
  "libglib2.0-bin",
  "gnome-shell-common",
  "bc",
  // Its chrome tasks edit Chrome's Preferences with jq in their setup (installing it first, which
  // needs the internet; here it is installed already).
  "jq",
] as const;

/**
 * Chromium's profile as on OSWorld's machines, where Chrome has run before: "First Run" is there (a
 * profile without it is new, and Chromium replaces the Preferences it finds with its initial ones),
 * Default/Preferences exists (tasks edit it with jq before they start the browser), and
 * ~/.config/google-chrome, where OSWorld's tasks write Chrome's Preferences, is Chromium's profile.
 */
const CHROMIUM_PROFILE_FILES = { ".config/chromium/First Run": "", ".config/chromium/Default/Preferences": "{}\n" };
const CHROMIUM_PROFILE_LINKS = { ".config/google-chrome": "chromium" };

const DESKTOP_SESSION = "openbox --startup 'tint2' & exec pcmanfm --desktop";

/** The profiles by name. */
export const PROFILES: Readonly<Record<ProfileName, Profile>> = {
  minimal: {
    name: "minimal",
    description: "Xvfb, xterm, the small X programs, ImageMagick and Python: what the examples use; no window manager",
    packages: MINIMAL,
  },
  desktop: {
    name: "desktop",
    description: "minimal plus the Openbox window manager, a tint2 panel and the PCManFM desktop: windows have titles, focus and decorations",
    packages: DESKTOP,
    session: DESKTOP_SESSION,
  },
  office: {
    name: "office",
    description: "desktop plus LibreOffice (Calc, Writer, Impress), Chromium, GIMP, VLC, Thunderbird and Python with openpyxl and python-docx",
    packages: OFFICE,
    session: DESKTOP_SESSION,
    userFiles: {
      ".config/libreoffice/4/user/registrymodifications.xcu": LIBREOFFICE_SETTINGS,
      ".config/mimeapps.list": OFFICE_MIME_DEFAULTS,
      ...CHROMIUM_PROFILE_FILES,
    },
    userLinks: CHROMIUM_PROFILE_LINKS,
  },
};

/** The profile of `name`, or an error listing the profiles. */
export function profileOf(name: string): Profile {
  if ((PROFILE_NAMES as readonly string[]).includes(name)) return PROFILES[name as ProfileName];
  throw new Error(`no image profile ${JSON.stringify(name)}: choose ${PROFILE_NAMES.join(", ")}`);
}

/** A Debian package name as apt takes it (lower case, digits, + - .), optionally with =version or /suite. */
export const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]+(?:[=/][A-Za-z0-9.+~:-]+)?$/;
