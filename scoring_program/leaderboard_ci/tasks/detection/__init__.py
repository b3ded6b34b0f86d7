"""Object detection (``task: detection``): COCO box metrics and PASCAL VOC AP50, resampled by image."""
