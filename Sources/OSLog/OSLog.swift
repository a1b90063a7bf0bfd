// `import OSLog` reaches the same logging as `import os` (Sources/os).
@_exported import os
