# Installs the shiro binary on Windows (docs/release.md):
#
#   irm https://github.com/shiro-neko/shiro/releases/latest/download/install.ps1 | iex
#
# Downloads shiro-windows-x64.zip and SHA256SUMS from the release base, verifies the checksum, and
# only then writes shiro.exe into the install folder (default %LOCALAPPDATA%\Programs\shiro).
# Any failure stops with one line and leaves nothing behind. Settings, since `irm | iex` takes no
# parameters, come from the environment: SHIRO_INSTALL_BASE (a URL or a folder), SHIRO_INSTALL_DIR.
# Not tested in CI (no PowerShell there); install.sh is the tested installer.
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'

$DefaultBase = 'https://github.com/shiro-neko/shiro/releases/latest/download'
$Base = if ($env:SHIRO_INSTALL_BASE) { $env:SHIRO_INSTALL_BASE.TrimEnd('/', '\') } else { $DefaultBase }
$Dir = if ($env:SHIRO_INSTALL_DIR) { $env:SHIRO_INSTALL_DIR } else { Join-Path $env:LOCALAPPDATA 'Programs\shiro' }
$Archive = 'shiro-windows-x64.zip'

function Stop-Install([string]$Message) {
  [Console]::Error.WriteLine("shiro install: $Message")
  exit 1
}

# x64 Windows, and ARM64 Windows through its x64 emulation.
$Arch = $env:PROCESSOR_ARCHITECTURE
if ($env:PROCESSOR_ARCHITEW6432) { $Arch = $env:PROCESSOR_ARCHITEW6432 }
if ($Arch -ne 'AMD64' -and $Arch -ne 'ARM64') {
  Stop-Install "no shiro build for Windows $Arch (builds: windows-x64); build from source: docs/release.md"
}

function Get-ReleaseFile([string]$Name, [string]$Dest) {
  if ($Base -match '^https?://') {
    Invoke-WebRequest -UseBasicParsing -Uri "$Base/$Name" -OutFile $Dest
  } else {
    Copy-Item -LiteralPath (Join-Path ($Base -replace '^file://', '') $Name) -Destination $Dest
  }
}

$Tmp = Join-Path ([IO.Path]::GetTempPath()) ("shiro-install-" + [Guid]::NewGuid().ToString('N'))
New-Item -ItemType Directory -Path $Tmp | Out-Null
try {
  try { Get-ReleaseFile 'SHA256SUMS' (Join-Path $Tmp 'SHA256SUMS') } catch { Stop-Install "cannot download $Base/SHA256SUMS; check the network or SHIRO_INSTALL_BASE" }
  try { Get-ReleaseFile $Archive (Join-Path $Tmp $Archive) } catch { Stop-Install "cannot download $Base/$Archive (no build for windows-x64 in this release?)" }
  $Expected = $null
  foreach ($Line in Get-Content (Join-Path $Tmp 'SHA256SUMS')) {
    $Parts = $Line -split '\s+', 2
    if ($Parts.Count -eq 2 -and ($Parts[1] -eq $Archive -or $Parts[1] -eq "*$Archive")) { $Expected = $Parts[0].ToLower(); break }
  }
  if (-not $Expected) { Stop-Install "SHA256SUMS at $Base lists no $Archive; nothing was installed" }
  $Actual = (Get-FileHash -Algorithm SHA256 -LiteralPath (Join-Path $Tmp $Archive)).Hash.ToLower()
  if ($Actual -ne $Expected) { Stop-Install "checksum mismatch for $Archive (expected $Expected, got $Actual); nothing was installed" }

  $Extracted = Join-Path $Tmp 'x'
  try { Expand-Archive -LiteralPath (Join-Path $Tmp $Archive) -DestinationPath $Extracted } catch { Stop-Install "$Archive does not hold a shiro binary; nothing was installed" }
  $Exe = Join-Path $Extracted 'shiro.exe'
  if (-not (Test-Path -LiteralPath $Exe)) { Stop-Install "$Archive does not hold a shiro binary; nothing was installed" }

  try {
    New-Item -ItemType Directory -Force -Path $Dir | Out-Null
    $Target = Join-Path $Dir 'shiro.exe'
    $Staged = Join-Path $Dir ".shiro-install-$PID.exe"
    Copy-Item -LiteralPath $Exe -Destination $Staged
    # A running shiro.exe cannot be overwritten but can be renamed aside.
    if (Test-Path -LiteralPath $Target) { Move-Item -Force -LiteralPath $Target -Destination "$Target.old" }
    Move-Item -Force -LiteralPath $Staged -Destination $Target
  } catch {
    if ($Staged -and (Test-Path -LiteralPath $Staged)) { Remove-Item -Force -LiteralPath $Staged }
    Stop-Install "cannot write $Dir\shiro.exe; set SHIRO_INSTALL_DIR to a folder you can write"
  }

  $Version = & $Target --version
  Write-Output "installed $Version"
  Write-Output "  to $Target"
  $UserPath = [Environment]::GetEnvironmentVariable('Path', 'User')
  if (-not (($UserPath -split ';') -contains $Dir)) {
    Write-Output "$Dir is not on PATH; add it: [Environment]::SetEnvironmentVariable('Path', '$Dir;' + [Environment]::GetEnvironmentVariable('Path', 'User'), 'User')  (then open a new terminal)"
  }
} finally {
  Remove-Item -Recurse -Force -LiteralPath $Tmp -ErrorAction SilentlyContinue
}
