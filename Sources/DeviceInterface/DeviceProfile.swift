/// Which ultra-wideband chip and antennas a device has: its model's own noise, failures and angle coverage
/// (docs/radio-model.md, "Device profiles"). A device knows what it is; what the profile does to a reading is the
/// world's.
public enum DeviceProfile: String, Sendable, CaseIterable, Codable {
    /// The model of the earlier issues, fitted to no single device: its figures are the radio's settings
    /// (`--los-sigma`, `--negative-distance`), and it is the default.
    case generic
    /// An iPhone with Apple's U1 chip.
    case iphone
    /// A Pixel 6 Pro (NXP's chip).
    case pixel
    /// A Galaxy S21 Ultra (NXP's chip).
    case galaxy
    /// A Qorvo DWM3000 evaluation board (one antenna).
    case dw3000
}
