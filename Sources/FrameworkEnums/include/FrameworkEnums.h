#ifndef NEARCATCH_FRAMEWORK_ENUMS_H
#define NEARCATCH_FRAMEWORK_ENUMS_H

/* Apple's frameworks declare these in C as open enums (NS_ENUM), and Swift imports such an enum as non-frozen: a
   `switch` over one takes `default:` without a warning, and one without it is asked for `@unknown default`. Declared
   here the same way, so that an app's switch compiles as it does for iOS; the faces name them as Apple's Swift does
   (`NINearbyObject.RemovalReason`). */
#define NEARCATCH_OPEN_ENUM(_type, _name) enum __attribute__((enum_extensibility(open))) _name : _type

NEARCATCH_OPEN_ENUM(long, NINearbyObjectRemovalReason) {
    NINearbyObjectRemovalReasonTimeout = 0,
    NINearbyObjectRemovalReasonPeerEnded = 1,
};
typedef enum NINearbyObjectRemovalReason NINearbyObjectRemovalReason;

NEARCATCH_OPEN_ENUM(long, NINearbyObjectVerticalDirectionEstimate) {
    NINearbyObjectVerticalDirectionEstimateUnknown = 0,
    NINearbyObjectVerticalDirectionEstimateSame = 1,
    NINearbyObjectVerticalDirectionEstimateAbove = 2,
    NINearbyObjectVerticalDirectionEstimateBelow = 3,
    NINearbyObjectVerticalDirectionEstimateAboveOrBelow = 4,
};
typedef enum NINearbyObjectVerticalDirectionEstimate NINearbyObjectVerticalDirectionEstimate;

NEARCATCH_OPEN_ENUM(long, MCSessionState) {
    MCSessionStateNotConnected = 0,
    MCSessionStateConnecting = 1,
    MCSessionStateConnected = 2,
};
typedef enum MCSessionState MCSessionState;

NEARCATCH_OPEN_ENUM(long, MCSessionSendDataMode) {
    MCSessionSendDataModeReliable = 0,
    MCSessionSendDataModeUnreliable = 1,
};
typedef enum MCSessionSendDataMode MCSessionSendDataMode;

NEARCATCH_OPEN_ENUM(long, MCEncryptionPreference) {
    MCEncryptionPreferenceOptional = 0,
    MCEncryptionPreferenceRequired = 1,
    MCEncryptionPreferenceNone = 2,
};
typedef enum MCEncryptionPreference MCEncryptionPreference;

NEARCATCH_OPEN_ENUM(int, CMMagneticFieldCalibrationAccuracy) {
    CMMagneticFieldCalibrationAccuracyUncalibrated = -1,
    CMMagneticFieldCalibrationAccuracyLow = 0,
    CMMagneticFieldCalibrationAccuracyMedium = 1,
    CMMagneticFieldCalibrationAccuracyHigh = 2,
};
typedef enum CMMagneticFieldCalibrationAccuracy CMMagneticFieldCalibrationAccuracy;

NEARCATCH_OPEN_ENUM(long, CMDeviceMotionSensorLocation) {
    CMDeviceMotionSensorLocationDefault = 0,
    CMDeviceMotionSensorLocationHeadphoneLeft = 1,
    CMDeviceMotionSensorLocationHeadphoneRight = 2,
};
typedef enum CMDeviceMotionSensorLocation CMDeviceMotionSensorLocation;

#endif
